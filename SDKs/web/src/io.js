// The SDK's seams besides the clock: storage and transport, each with a browser default and an
// in-memory twin for tests. Nothing here imports Node modules, so a page can load it as is
// (the file storage for Node lives in node-storage.js).

// Storage is synchronous, like the browser's localStorage: load(key) → text | null, save(key, text).
export class MemoryStorage {
  constructor() {
    this.items = new Map();
  }
  load(key) {
    return this.items.has(key) ? this.items.get(key) : null;
  }
  save(key, text) {
    this.items.set(key, text);
  }
}

// Browser storage (window.localStorage) under a prefix, for pages.
export class LocalStorage {
  constructor(store = globalThis.localStorage, prefix = 'lerix:') {
    this.store = store;
    this.prefix = prefix;
  }
  load(key) {
    return this.store.getItem(this.prefix + key);
  }
  save(key, text) {
    this.store.setItem(this.prefix + key, text);
  }
}

// A transport is `async send({method, url, headers, body}) → {status, headers, body}` with
// lower-case header names and the body as text; it throws when no response arrived.
// The default speaks through fetch. The timeout is the transport's (real time, like a socket
// timeout), not the SDK's: the SDK itself reads no clock but the injected one.
export function fetchTransport({ fetch: fetchImpl = globalThis.fetch, timeoutMs = 30_000 } = {}) {
  return async function send(request) {
    const init = { method: request.method, headers: request.headers };
    if (request.body !== undefined && request.body !== null) init.body = request.body;
    if (timeoutMs && typeof AbortSignal?.timeout === 'function') init.signal = AbortSignal.timeout(timeoutMs);
    let response;
    try {
      response = await fetchImpl(request.url, init);
    } catch (e) {
      // fetch hides the socket's reason in `cause` (ECONNREFUSED, UND_ERR_SOCKET, …).
      const cause = e?.cause?.code || e?.cause?.message;
      throw new Error(cause ? `${e.message}: ${cause}` : String(e?.message ?? e));
    }
    const headers = {};
    response.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value;
    });
    const body = await response.text();
    return { status: response.status, headers, body };
  };
}

// The real clock, the one place that reads the host's time: the wall clock (which the user may
// set), a monotonic clock that never jumps, and timers that wait by the monotonic clock. Tests
// and the adapter inject a virtual clock with the same shape instead.
export const systemClock = {
  now: () => Date.now(),
  monotonic: () => globalThis.performance.now(),
  setTimer(delayMs, fn) {
    const handle = setTimeout(fn, Math.max(0, delayMs));
    return { cancel: () => clearTimeout(handle) };
  },
};
