// The SDK's seams besides the clock: storage and transport, each with a browser default and an
// in-memory twin for tests. Nothing here imports Node modules, so a page can load it as is
// (the file storage for Node lives in node-storage.js).

/**
 * Synchronous like the browser's localStorage.
 * @typedef {object} Storage
 * @property {(key: string) => string | null} load the text saved under `key`, or null
 * @property {(key: string, text: string) => void} save
 */

/**
 * A request the SDK sends; header names are lower case.
 * @typedef {object} TransportRequest
 * @property {string} method
 * @property {string} url
 * @property {Record<string, string>} headers
 * @property {string} [body]
 */

/**
 * A response: lower-case header names, the body as text.
 * @typedef {object} TransportResponse
 * @property {number} status
 * @property {Record<string, string>} headers
 * @property {string} body
 */

/**
 * Sends one request; rejects when no response arrived.
 * @typedef {(request: TransportRequest) => Promise<TransportResponse>} Transport
 */

/**
 * The device clock: wall-clock milliseconds since the epoch (the user may set it), monotonic
 * milliseconds (never jumps), and timers that wait by the monotonic clock.
 * @typedef {object} Clock
 * @property {() => number} now
 * @property {() => number} monotonic
 * @property {(delayMs: number, fn: () => void) => { cancel(): void }} setTimer
 */

// Storage is synchronous, like the browser's localStorage: load(key) → text | null, save(key, text).
/** @implements {Storage} */
export class MemoryStorage {
  constructor() {
    /** @type {Map<string, string>} */
    this.items = new Map();
  }
  /** @param {string} key */
  load(key) {
    return this.items.has(key) ? /** @type {string} */ (this.items.get(key)) : null;
  }
  /**
   * @param {string} key
   * @param {string} text
   */
  save(key, text) {
    this.items.set(key, text);
  }
}

// Browser storage (window.localStorage) under a prefix, for pages.
/** @implements {Storage} */
export class LocalStorage {
  /**
   * @param {{ getItem(key: string): string | null, setItem(key: string, value: string): void }} [store]
   * @param {string} [prefix]
   */
  constructor(store = /** @type {any} */ (globalThis).localStorage, prefix = 'lerix:') {
    this.store = store;
    this.prefix = prefix;
  }
  /** @param {string} key */
  load(key) {
    return this.store.getItem(this.prefix + key);
  }
  /**
   * @param {string} key
   * @param {string} text
   */
  save(key, text) {
    this.store.setItem(this.prefix + key, text);
  }
}

// A transport is `async send({method, url, headers, body}) → {status, headers, body}` with
// lower-case header names and the body as text; it throws when no response arrived.
// The default speaks through fetch. The timeout is the transport's (real time, like a socket
// timeout), not the SDK's: the SDK itself reads no clock but the injected one.
/**
 * @param {{ fetch?: typeof globalThis.fetch, timeoutMs?: number }} options `timeoutMs`: real
 *   milliseconds to wait for an answer (0: no limit)
 * @returns {Transport}
 */
export function fetchTransport({ fetch: fetchImpl = globalThis.fetch, timeoutMs = 30_000 } = {}) {
  return async function send(request) {
    /** @type {RequestInit} */
    const init = { method: request.method, headers: request.headers };
    if (request.body !== undefined && request.body !== null) init.body = request.body;
    // AbortSignal.timeout is newer than TypeScript 4.8's DOM library.
    const Abort = /** @type {{ timeout?: (ms: number) => AbortSignal } | undefined} */ (globalThis.AbortSignal);
    if (timeoutMs && typeof Abort?.timeout === 'function') init.signal = Abort.timeout(timeoutMs);
    let response;
    try {
      response = await fetchImpl(request.url, init);
    } catch (e) {
      // fetch hides the socket's reason in `cause` (ECONNREFUSED, UND_ERR_SOCKET, …).
      const error = /** @type {any} */ (e);
      const cause = error?.cause?.code || error?.cause?.message;
      throw new Error(cause ? `${error.message}: ${cause}` : String(error?.message ?? error));
    }
    /** @type {Record<string, string>} */
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
/** @type {Clock} */
export const systemClock = {
  now: () => Date.now(),
  monotonic: () => globalThis.performance.now(),
  setTimer(delayMs, fn) {
    const handle = setTimeout(fn, Math.max(0, delayMs));
    return { cancel: () => clearTimeout(handle) };
  },
};
