// Test twins: a virtual clock (true time, a settable wall-clock offset, timers), an in-memory
// server speaking the check contract (ETag, 304, Lerix-Server-Time, faults), and a harness
// that builds an SDK on them.

import { Lerix, MemoryStorage, STORAGE_KEY } from '../src/lerix.js';
import { formatTime } from '../src/answer.js';

/** @typedef {import('../src/io.js').TransportRequest} TransportRequest */
/** @typedef {import('../src/io.js').TransportResponse} TransportResponse */
/** @typedef {import('../src/lerix.js').LerixConfigInput} LerixConfigInput */

/**
 * @typedef {object} HarnessOptions
 * @property {number} [offsetMs] the device clock's offset from true time
 * @property {LerixConfigInput} [config] merged over the test configuration
 * @property {MemoryStorage} [storage]
 */

export const T0 = Date.parse('2026-12-02T09:32:00.000Z');
export const S = 1000;
export const MIN = 60 * S;
export const H = 60 * MIN;
export const D = 24 * H;
/** @type {(ms: number) => string} */
export const iso = (ms) => formatTime(ms);

/** @typedef {import('../src/io.js').Clock} Clock */

/** @implements {Clock} */
export class VirtualClock {
  constructor(start = T0, offsetMs = 0) {
    this.true = start;
    this.offsetMs = offsetMs;
    /** @type {{ at: number, fn: () => void, cancelled: boolean }[]} */
    this.timers = [];
  }
  now() {
    return this.true + this.offsetMs;
  }
  monotonic() {
    return this.true;
  }
  /**
   * @param {number} delayMs
   * @param {() => void} fn
   */
  setTimer(delayMs, fn) {
    const t = { at: this.true + delayMs, fn, cancelled: false };
    this.timers.push(t);
    return { cancel: () => { t.cancelled = true; } };
  }
  pending() {
    return this.timers.filter((t) => !t.cancelled);
  }
  // Moves true time to `to`, firing due timers in order and letting their requests finish.
  /**
   * @param {number} to
   * @param {Lerix[]} [sdks]
   */
  async advanceTo(to, sdks = []) {
    for (;;) {
      const due = this.pending().filter((t) => t.at <= to).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.true = Math.max(this.true, due.at);
      due.cancelled = true;
      due.fn();
      for (const sdk of sdks) await sdk.idle();
    }
    this.true = to;
  }
  /**
   * @param {number} ms
   * @param {Lerix[]} [sdks]
   */
  advanceBy(ms, sdks) {
    return this.advanceTo(this.true + ms, sdks);
  }
}

// The answer the server gives: set `answer` parts; `lifetime` defaults to 300.
export class FakeServer {
  /** @param {{ readonly true: number }} clock true time (a VirtualClock, or the adapter's scheduler) */
  constructor(clock) {
    this.clock = clock; // reads true time: the server's clock is right
    /** @type {Record<string, unknown>} */
    this.answer = { required_update: null, optional_update: null, maintenance: [], sdk_switch: [] };
    this.lifetime = 300;
    /** @type {TransportRequest[]} */
    this.requests = [];
    /** @type {(number | 'reset' | 'malformed' | 'wrong_types')[]} */
    this.faults = [];
    /** @type {Record<string, number>} */
    this.ingest = {};
    /** @type {import('../src/io.js').Transport} */
    this.transport = (request) => this.handle(request);
  }
  get checks() {
    return this.requests.filter((r) => r.method === 'GET');
  }
  etag() {
    const text = JSON.stringify(this.answer);
    let h = 0;
    for (const ch of text) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    return `W/"${h.toString(16)}"`;
  }
  /**
   * @param {TransportRequest} request
   * @returns {Promise<TransportResponse>}
   */
  async handle(request) {
    this.requests.push(request);
    const serverTime = iso(this.clock.true);
    if (request.method === 'POST') {
      const module = request.url.split('/').pop();
      this.ingest[module] = (this.ingest[module] ?? 0) + JSON.parse(request.body).length;
      return { status: 202, headers: {}, body: '' };
    }
    const fault = this.faults.shift();
    if (fault === 'reset') throw new Error('socket hang up');
    if (typeof fault === 'number') return { status: fault, headers: { 'content-type': 'application/problem+json' }, body: JSON.stringify({ title: 'Injected', detail: `status ${fault}` }) };
    const headers = { etag: this.etag(), 'cache-control': `private, max-age=${this.lifetime}`, 'lerix-server-time': serverTime };
    if (fault === 'malformed') return { status: 200, headers, body: '{"project": "demo", ' };
    if (fault === 'wrong_types') {
      return { status: 200, headers, body: JSON.stringify({ project: 'demo', required_update: [], optional_update: 7, maintenance: {}, sdk_switch: 'x', lifetime: '60', server_time: 5 }) };
    }
    if (request.headers['if-none-match'] === this.etag()) return { status: 304, headers, body: '' };
    return { status: 200, headers, body: JSON.stringify({ project: 'demo', server_time: serverTime, lifetime: this.lifetime, ...this.answer }) };
  }
}

/** @param {HarnessOptions} options */
export function harness({ offsetMs = 0, config = {}, storage = new MemoryStorage() } = {}) {
  const clock = new VirtualClock(T0, offsetMs);
  const server = new FakeServer(clock);
  /** @type {string[]} */
  const logs = [];
  /** @type {(extra?: LerixConfigInput) => Lerix} */
  const make = (extra = {}) => new Lerix({
    config: { baseUrl: 'http://lerix.test', project: 'demo', appVersion: '2.3.0', ...config, ...extra },
    clock, transport: server.transport, storage, log: (l) => logs.push(l),
  });
  return { clock, server, storage, logs, make };
}

// The set-up most tests begin with: a harness whose server answers with `answer`'s parts (and
// `lifetime`), a saved file already in storage when `savedFile` is given, and an SDK on it that
// started and whose launch check (with what it started) finished.
/** @param {HarnessOptions & { answer?: Record<string, unknown>, lifetime?: number, savedFile?: string }} options */
export async function started({ answer = {}, lifetime, savedFile, ...options } = {}) {
  const h = harness(options);
  Object.assign(h.server.answer, answer);
  if (lifetime !== undefined) h.server.lifetime = lifetime;
  if (savedFile !== undefined) h.storage.save(STORAGE_KEY, savedFile);
  const sdk = h.make();
  sdk.start();
  await sdk.idle();
  return { h, sdk };
}
