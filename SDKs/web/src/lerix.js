// The Lerix web SDK's release control (spec: "Delivery and offline behaviour").
//
//   const lerix = new Lerix({ config: { baseUrl, project: 'demo', appVersion: '4.2.0' } });
//   lerix.onChange((state) => render(state.screen));
//   lerix.start();                                  // saved answer first, then a check
//   document.onvisibilitychange = () => document.hidden ? lerix.background() : lerix.foreground();
//   addEventListener('online', () => lerix.setOnline(true));
//   addEventListener('offline', () => lerix.setOnline(false));
//   const fresh = await lerix.refresh();
//
// `Lerix` is the I/O around the pure ReleaseControlMachine (machine.js), which holds every rule:
// each method reads the injected clock once, hands the machine an event and does the actions it
// returns. All time comes from the injected clock, all HTTP from the injected transport, all
// persistence from the injected storage. Events are synchronous; the HTTP they start runs in
// the background, and `idle()` resolves once every request started has finished.

import { MODULES } from './answer.js';
import { MemoryStorage, fetchTransport, systemClock } from './io.js';
import { ReleaseControlMachine, STORAGE_KEY, normalizeConfig } from './machine.js';

/** @typedef {import('./answer.js').Module} Module */
/** @typedef {import('./answer.js').PausableModule} PausableModule */
/** @typedef {import('./io.js').Clock} Clock */
/** @typedef {import('./io.js').Transport} Transport */
/** @typedef {import('./io.js').Storage} Storage */
/** @typedef {import('./machine.js').LerixConfigInput} LerixConfigInput */
/** @typedef {import('./machine.js').LerixConfig} LerixConfig */
/** @typedef {import('./machine.js').LerixState} LerixState */
/** @typedef {import('./machine.js').LerixStats} LerixStats */
/** @typedef {import('./machine.js').CheckFailure} CheckFailure */
/** @typedef {import('./machine.js').Event} Event */
/** @typedef {import('./machine.js').Action} Action */
/** @typedef {import('./machine.js').Purpose} Purpose */
/** @typedef {import('./machine.js').Reading} Reading */

/**
 * @typedef {object} LerixOptions
 * @property {LerixConfigInput} config
 * @property {Clock} [clock] default: the system clock
 * @property {Transport} [transport] default: fetch
 * @property {Storage} [storage] default: memory (nothing survives the page)
 * @property {boolean} [online] whether the network is up at first (a page: `navigator.onLine`)
 * @property {((line: string) => void) | null} [log] where the SDK says what went wrong
 */

/** Release control for one page life. */
export class Lerix {
  /** @param {LerixOptions} options */
  constructor({ config, clock = systemClock, transport = fetchTransport(), storage = new MemoryStorage(), online = true, log = null }) {
    this.clock = clock;
    this.transport = transport;
    this.storage = storage;
    this.log = log;
    /** @private @type {Set<Promise<void>>} */
    this._pending = new Set();
    /** @private @type {{ cancel(): void } | null} */
    this._timer = null;
    /** @private */
    this._generation = 0; // bumped on shutdown: answers to an ended process are not applied
    /** @private @type {Set<(state: LerixState) => void>} */
    this._observers = new Set();
    /** @private @type {string | undefined} the state observers last saw, as JSON */
    this._lastNotified = undefined;
    /** @private @type {(() => void)[]} `refresh()` callers waiting for the checks to settle */
    this._waiters = [];
    /** @private */
    this._machine = new ReleaseControlMachine({ config: normalizeConfig(config), savedFile: this._load(), online, reading: this._read() });
  }

  // ---- events -------------------------------------------------------------------------

  /** App start (page load): the saved answer applies at once, then a check goes out. */
  start() {
    this._handle({ type: 'start' });
  }

  /** The tab became visible: fetch when the saved answer outlived its lifetime. */
  foreground() {
    this._handle({ type: 'foreground' });
  }

  /** The tab was hidden: polling stops until it is visible again. */
  background() {
    this._handle({ type: 'background' });
  }

  /**
   * The browser's online/offline events. Back online counts as a return to the foreground on
   * the web (a stale answer is fetched), and a check missed offline goes out now.
   * @param {boolean} online
   */
  setOnline(online) {
    this._handle({ type: 'network', online });
  }

  /**
   * Checks now; resolves with the state once that check (and any queued behind it) finished.
   * Offline or with release control off it resolves at once with the saved state.
   * @returns {Promise<LerixState>}
   */
  refresh() {
    this._handle({ type: 'refresh' });
    return this._checksSettled().then(() => this.state);
  }

  /** Later: the optional prompt hides until the next start. */
  later() {
    this._handle({ type: 'later' });
  }

  /** Skip: this rule's optional prompt hides for good (remembered in storage). */
  skip() {
    this._handle({ type: 'skip' });
  }

  /**
   * Queues items for a module; they go to the ingest endpoint unless a switch pauses it. Also
   * works while the app is not running: the items wait in storage for the next start.
   * @param {Module} module
   * @param {unknown} items one item or an array of them
   * @throws {TypeError} for a module not in MODULES
   */
  track(module, items) {
    if (!MODULES.includes(module)) throw new TypeError(`unknown module ${module}`);
    const list = Array.isArray(items) ? items : [items];
    this._handle({ type: 'track', module, items: list });
  }

  /** The page goes away: timers stop, answers still in flight are dropped. */
  shutdown() {
    this._generation += 1;
    this._perform(this._machine.handle({ type: 'shutdown' }, this._read()));
  }

  /**
   * Resolves once every request started so far (and those their answers started) finished.
   * @returns {Promise<void>}
   */
  async idle() {
    while (this._pending.size) await Promise.allSettled([...this._pending]);
  }

  /**
   * Calls `observer` with the state whenever it changed, after each event.
   * @param {(state: LerixState) => void} observer
   * @returns {() => boolean} removes the observer
   */
  onChange(observer) {
    this._observers.add(observer);
    return () => this._observers.delete(observer);
  }

  /**
   * Whether a saved SDK switch pauses `module` now.
   * @param {PausableModule} module
   */
  isPaused(module) {
    return this._machine.isPaused(module, this._read());
  }

  // ---- state --------------------------------------------------------------------------

  /**
   * What the app shows now, from the saved answer and the offline rules.
   * @returns {LerixState}
   */
  get state() {
    return this._machine.state(this._read());
  }

  /** Whether the SDK polls: a visible tab whose answer's lifetime is at most 60 s. */
  get polling() {
    return this._machine.polling;
  }

  /** @returns {LerixConfig} the configuration with its defaults filled */
  get config() {
    return this._machine.config;
  }

  /** @returns {LerixStats} what this instance counted */
  get stats() {
    return this._machine.stats;
  }

  /** @returns {CheckFailure | null} why the last failed check of this instance failed */
  get lastFailure() {
    return this._machine.lastFailure;
  }

  /** Whether the SDK takes the network to be up (its last `setOnline`). */
  get online() {
    return this._machine.online;
  }

  /** Between `start()` and `shutdown()`. */
  get running() {
    return this._machine.running;
  }

  /** Whether the tab is visible (`start()` or `foreground()` since the last `background()`). */
  get visible() {
    return this._machine.visible;
  }

  /** Whether a request it started (or one their answers started) has not finished. */
  get busy() {
    return this._pending.size > 0;
  }

  // ---- plumbing -----------------------------------------------------------------------

  /** @private @returns {Reading} */
  _read() {
    return { wall: this.clock.now(), mono: this.clock.monotonic() };
  }

  /** @private @param {Event} event */
  _handle(event) {
    this._machine.reportsState = this._observers.size > 0;
    this._perform(this._machine.handle(event, this._read()));
  }

  /** @private @param {Action[]} actions */
  _perform(actions) {
    for (const action of actions) {
      switch (action.type) {
        case 'send': this._send(action.purpose, action.request); break;
        case 'timer': this._setTimer(action.delayMs); break;
        case 'persist': this._save(action.text); break;
        case 'log': this.log?.(action.line); break;
        case 'notify': this._notify(action.state); break;
        case 'checks-settled': this._settleWaiters(); break;
      }
    }
  }

  /**
   * Sends a request; its result goes back to the machine unless the process ended meanwhile.
   * @param {Purpose} purpose
   * @param {import('./io.js').TransportRequest} request
   * @private
   */
  _send(purpose, request) {
    const generation = this._generation;
    const p = this.transport(request).then(
      (response) => { if (generation === this._generation) this._handle({ type: 'answered', purpose, response }); },
      (error) => { if (generation === this._generation) this._handle({ type: 'unanswered', purpose, error }); },
    ).catch((e) => this.log?.(`lerix: internal error: ${e?.stack ?? e}`));
    this._pending.add(p);
    p.finally(() => this._pending.delete(p));
  }

  /** @private @param {number | null} delayMs */
  _setTimer(delayMs) {
    this._timer?.cancel();
    this._timer = null;
    if (delayMs !== null) {
      this._timer = this.clock.setTimer(delayMs, () => {
        this._timer = null;
        this._handle({ type: 'timer' });
      });
    }
  }

  /**
   * Resolves once no check runs or is queued.
   * @private
   * @returns {Promise<void>}
   */
  _checksSettled() {
    if (!this._machine.checking) return Promise.resolve();
    return new Promise((resolve) => this._waiters.push(resolve));
  }

  /** @private */
  _settleWaiters() {
    const waiting = this._waiters;
    this._waiters = [];
    waiting.forEach((resolve) => resolve());
  }

  /** @private @param {LerixState} s */
  _notify(s) {
    if (!this._observers.size) return;
    const key = JSON.stringify(s);
    if (key === this._lastNotified) return;
    this._lastNotified = key;
    for (const o of this._observers) {
      try {
        o(s);
      } catch (e) {
        this.log?.(`lerix: observer threw: ${/** @type {any} */ (e)?.message ?? e}`);
      }
    }
  }

  // ---- storage ------------------------------------------------------------------------

  /** @private @returns {unknown} the saved file as JSON, or null (none, or unreadable: starts afresh) */
  _load() {
    try {
      const text = this.storage.load(STORAGE_KEY);
      return text ? JSON.parse(text) : null;
    } catch (e) {
      this.log?.(`lerix: the saved answer is unreadable, starting afresh: ${/** @type {any} */ (e)?.message ?? e}`);
      return null;
    }
  }

  /** @private @param {string} text */
  _save(text) {
    try {
      this.storage.save(STORAGE_KEY, text);
    } catch (e) {
      this.log?.(`lerix: cannot save the release control answer: ${/** @type {any} */ (e)?.message ?? e}`);
    }
  }
}

export { SDK_NAME, SDK_VERSION, STORAGE_KEY, normalizeConfig } from './machine.js';
export { MODULES, PAUSABLE_MODULES } from './answer.js';
export { MemoryStorage, LocalStorage, fetchTransport, systemClock } from './io.js';
