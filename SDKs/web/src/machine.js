// The web SDK's release control logic as a pure machine (spec: "Delivery and offline
// behaviour"): events in, actions out. It reads no clock (each event brings one reading of
// the device clock), sends nothing, stores nothing, sets no timer: `Lerix` (lerix.js) does the
// I/O its actions ask for. The Swift SDK's ReleaseControlMachine has the same shape.
//
//   const at = { wall: Date.parse('2026-12-02T09:32:00Z'), mono: 0 };   // one reading of the device clock
//   const machine = new ReleaseControlMachine({ config: normalizeConfig({ baseUrl, project: 'demo', appVersion: '4.2.0' }),
//                                               savedFile: null, online: true, reading: at });
//   machine.handle({ type: 'start' }, at);
//   // → [{ type: 'send', purpose: { kind: 'check' }, request: { method: 'GET', url: '…/release-control?platform=web…', … } }]
//   machine.check;                                  // { name: 'in-flight', after: 'done' }
//   machine.handle({ type: 'answered', purpose: { kind: 'check' }, response }, at);
//   // → [{ type: 'persist', text: '{"format":1,…}' }, { type: 'checks-settled' }]
//
// How time is kept: within one process every interval (an answer's age, the poll, the 7-day
// drop) and the server's time are measured on the monotonic clock from the moment of the last
// answer, so a user setting the wall clock changes nothing. Only the saved file speaks wall
// clock (the next process has no shared monotonic clock): it stores the server-minus-device
// offset and the device times of receipt and last success, as they read when written.

import {
  MODULES, PAUSABLE_MODULES, formatTime, isObject, maxAge, parseAnswer, parseTime,
  isPresent, readOptional, readRequired, readSwitch, readWindow, statusReason, timeOf,
} from './answer.js';

/** @typedef {import('./answer.js').Module} Module */
/** @typedef {import('./answer.js').PausableModule} PausableModule */
/** @typedef {import('./answer.js').RequiredUpdate} RequiredUpdate */
/** @typedef {import('./answer.js').OptionalUpdate} OptionalUpdate */
/** @typedef {import('./answer.js').MaintenanceWindow} MaintenanceWindow */
/** @typedef {import('./answer.js').SDKSwitch} SDKSwitch */
/** @typedef {import('./answer.js').AnswerParts} AnswerParts */
/** @typedef {import('./io.js').TransportRequest} TransportRequest */
/** @typedef {import('./io.js').TransportResponse} TransportResponse */

export const SDK_NAME = 'js';
/** The version the SDK reports as `sdk_version`; package.json carries the same. */
export const SDK_VERSION = '1.0.0';
export const STORAGE_KEY = 'lerix-release-control.json';

const DAY_MS = 86_400_000;
const OPTIONAL_MAX_AGE_MS = 7 * DAY_MS;
const DEFAULT_LIFETIME = 300;
const MIN_POLL_SECONDS = 10; // never poll faster, whatever lifetime an answer sets
const JUMP_TOLERANCE_MS = 100; // smaller wall/monotonic drift is reading jitter, not the user
const INGEST_BATCH = 500;
const MAX_SKIPPED = 100;

/**
 * What an app passes as `config`: camelCase or the adapter's snake_case names.
 * @typedef {object} LerixConfigInput
 * @property {string} [baseUrl] the API's origin, e.g. `https://api.lerix.dev`
 * @property {string} [base_url]
 * @property {string} [project]
 * @property {string} [platform] `web` unless the embedder emulates another
 * @property {string | null} [appVersion] null: a device without a version (never blocked)
 * @property {string | null} [app_version]
 * @property {string | null} [build]
 * @property {string | null} [sdk] the `sdk` query value; null sends none
 * @property {string | null} [sdkVersion]
 * @property {string | null} [sdk_version]
 * @property {boolean} [enabled] false: release control off (no checks, nothing shown)
 * @property {boolean} [deadlinesOffline] a recommended update turns required at its deadline offline
 * @property {boolean} [deadlines_offline]
 */

/**
 * The configuration with every default filled.
 * @typedef {object} LerixConfig
 * @property {string} baseUrl
 * @property {string} project
 * @property {string} platform
 * @property {string | null} appVersion
 * @property {string | null} build
 * @property {string | null} sdk
 * @property {string | null} sdkVersion
 * @property {boolean} enabled
 * @property {boolean} deadlinesOffline
 */

/**
 * Accepts camelCase or the adapter's snake_case; fills the web defaults.
 * @param {LerixConfigInput} c
 * @returns {LerixConfig}
 */
export function normalizeConfig(c) {
  /** @type {(camel: keyof LerixConfigInput, snake: keyof LerixConfigInput, fallback: any) => any} */
  const pick = (camel, snake, fallback) => (c[camel] !== undefined ? c[camel] : c[snake] !== undefined ? c[snake] : fallback);
  const base = String(pick('baseUrl', 'base_url', '')).replace(/\/+$/, '');
  const platform = pick('platform', 'platform', 'web');
  return {
    baseUrl: base,
    project: String(c.project ?? ''),
    platform,
    appVersion: pick('appVersion', 'app_version', null) || null,
    build: pick('build', 'build', null) || null,
    sdk: pick('sdk', 'sdk', SDK_NAME),
    sdkVersion: pick('sdkVersion', 'sdk_version', SDK_VERSION),
    enabled: pick('enabled', 'enabled', true) !== false,
    // The spec turns a passed deadline required offline on Android and Flutter only; a web
    // page does not unless its embedder says it runs as one of those.
    deadlinesOffline: pick('deadlinesOffline', 'deadlines_offline', platform === 'android') === true,
  };
}

/**
 * One reading of the device clock: the wall clock (which the user may set) and the monotonic
 * clock (which never jumps), both in milliseconds.
 * @typedef {{ wall: number, mono: number }} Reading
 */

/**
 * Where the check stands; at most one is in flight. While it flies, what follows it is
 * decided by the needs that arrive (`after`):
 * - `done`: nothing; `again`: one more check at once (a refresh came while it flew);
 * - `owed`: a check came due offline, it goes out when the network returns;
 * - `again-or-owed`: both; one more at once when online, else owed.
 * @typedef {{ name: 'idle' } | { name: 'owed' } | { name: 'in-flight', after: AfterCheck }} CheckPhase
 * @typedef {'done' | 'again' | 'owed' | 'again-or-owed'} AfterCheck
 */

/** @type {CheckPhase} */
const IDLE = { name: 'idle' };
/** @type {CheckPhase} */
const OWED = { name: 'owed' };
/** @type {(after: AfterCheck) => CheckPhase} */
const inFlight = (after) => ({ name: 'in-flight', after });

/**
 * Whether a check is owed for when the network returns (missed offline).
 * @param {CheckPhase} p
 */
export function owes(p) {
  return p.name === 'owed' || (p.name === 'in-flight' && (p.after === 'owed' || p.after === 'again-or-owed'));
}

/**
 * The phase once a check came due offline.
 * @param {CheckPhase} p
 * @returns {CheckPhase}
 */
function missedOffline(p) {
  if (p.name !== 'in-flight') return OWED;
  return inFlight(p.after === 'again' || p.after === 'again-or-owed' ? 'again-or-owed' : 'owed');
}

/**
 * The phase once a refresh asked for a check while one flies: one more follows it.
 * @param {CheckPhase} p
 * @returns {CheckPhase}
 */
function followedByAnother(p) {
  if (p.name !== 'in-flight') return p;
  return inFlight(owes(p) ? 'again-or-owed' : 'again');
}

/**
 * The phase with no check owed (an app start forgets one missed earlier).
 * @param {CheckPhase} p
 * @returns {CheckPhase}
 */
function forgiven(p) {
  if (p.name === 'owed') return IDLE;
  if (p.name !== 'in-flight') return p;
  return inFlight(p.after === 'owed' ? 'done' : p.after === 'again-or-owed' ? 'again' : p.after);
}

/**
 * The phase once the in-flight check is dropped (the process ends): what was owed stays owed.
 * @param {CheckPhase} p
 * @returns {CheckPhase}
 */
function abandoned(p) {
  return owes(p) ? OWED : IDLE;
}

/**
 * What a request is for, handed back with its result.
 * @typedef {{ kind: 'check' } | { kind: 'ingest', module: Module, count: number }} Purpose
 */

/**
 * Something that happened to the page, the network or a request.
 * @typedef {{ type: 'start' } | { type: 'foreground' } | { type: 'background' }
 *   | { type: 'network', online: boolean } | { type: 'refresh' } | { type: 'later' } | { type: 'skip' }
 *   | { type: 'track', module: Module, items: unknown[] } | { type: 'timer' } | { type: 'shutdown' }
 *   | { type: 'answered', purpose: Purpose, response: TransportResponse }
 *   | { type: 'unanswered', purpose: Purpose, error: unknown }} Event
 */

/**
 * Work for the owner, in order.
 * - `send`: start a request; its result comes back as `answered` or `unanswered` with `purpose`.
 * - `timer`: replace the one wake-up timer (null: cancel it); it fires as a `timer` event.
 * - `persist`: save `text` under STORAGE_KEY. `log`: one line for the app's log.
 * - `notify`: the state observers may want (the owner skips it when unchanged).
 * - `checks-settled`: no check runs or is queued any more: `refresh()` callers can go on.
 * @typedef {{ type: 'send', purpose: Purpose, request: TransportRequest } | { type: 'timer', delayMs: number | null }
 *   | { type: 'persist', text: string } | { type: 'log', line: string } | { type: 'notify', state: LerixState }
 *   | { type: 'checks-settled' }} Action
 */

/**
 * Why the last failed check failed.
 * @typedef {object} CheckFailure
 * @property {'connection' | 'status' | 'body'} kind
 * @property {number | null} status the HTTP status, when one arrived
 * @property {string} reason
 * @property {string} [at] the device time of the failure (RFC 3339)
 */

/**
 * Counters of this instance.
 * @typedef {object} LerixStats
 * @property {number} checks check requests sent
 * @property {number} notModified 304 answers
 * @property {number} failedChecks
 * @property {Record<Module, number>} sent items each module sent
 */

/**
 * What the app shows now, from the saved answer and the offline rules.
 * @typedef {object} LerixState
 * @property {'none' | 'required_update' | 'maintenance' | 'optional_update'} screen
 * @property {RequiredUpdate | null} required_update
 * @property {OptionalUpdate | null} optional_update
 * @property {MaintenanceWindow[]} maintenance windows not yet over, by start
 * @property {MaintenanceWindow | null} active_maintenance
 * @property {PausableModule[]} paused_modules
 * @property {Record<Module, number>} queued items waiting per module
 * @property {string | null} last_success device time of the last successful check
 * @property {string | null} etag
 * @property {boolean} polling
 */

/**
 * The saved answer as the machine holds it (the file's device times live in the machine as
 * monotonic instants).
 * @typedef {object} Saved
 * @property {RequiredUpdate | null} required
 * @property {OptionalUpdate | null} optional
 * @property {MaintenanceWindow[]} maintenance
 * @property {SDKSwitch[]} switches
 * @property {string | null} etag
 * @property {number} lifetime seconds
 * @property {string | null} appVersion the version the saved updates came for
 * @property {string | null} build
 * @property {string[]} skipped rules whose optional prompt Skip hid
 * @property {Partial<Record<Module, unknown[]>>} queue items waiting per module
 */

export class ReleaseControlMachine {
  /**
   * @param {object} options
   * @param {LerixConfig} options.config
   * @param {unknown} options.savedFile the saved file as parsed JSON, or null when none
   * @param {boolean} options.online
   * @param {Reading} options.reading
   */
  constructor({ config, savedFile, online, reading }) {
    this.config = config;
    this.online = online;
    this.running = false;
    this.visible = false;
    this.deferredByLater = false;
    /** @type {LerixStats} */
    this.stats = { checks: 0, notModified: 0, failedChecks: 0, sent: /** @type {Record<Module, number>} */ (Object.fromEntries(MODULES.map((m) => [m, 0]))) };
    /** @type {CheckFailure | null} */
    this.lastFailure = null;
    /** Whether ``handle`` computes the state for `notify` (the owner has observers). */
    this.reportsState = false;
    /** @type {CheckPhase} */
    this.check = IDLE;
    /** @private */
    this._failedSinceSuccess = false;
    /** @private @type {Set<Module>} */
    this._ingestInFlight = new Set();
    // Modules whose last send failed: retried at the next opportunity (start, back online, a
    // successful check, a timer, new items), never in a loop against a failing server.
    /** @private @type {Set<Module>} */
    this._ingestFailed = new Set();
    /** @private @type {number | null} the monotonic instant the timer is set for */
    this._timerAt = null;
    /** @private @type {Reading | null} */
    this._lastReading = null;
    /** @private */
    this._clockJumped = false;
    /** @private @type {number | undefined} */
    this._lastAttemptMono = undefined;
    /** @private @type {Action[]} the actions of the event being handled */
    this._out = [];
    /** @private @type {{ mono: number, server: number } | null} the server's time at a monotonic instant */
    this._anchor = null;
    /** @private @type {number | null} when the saved answer was received (monotonic) */
    this._receivedMono = null;
    /** @private @type {number | null} */
    this._lastSuccessMono = null;
    /** Whether an answer was ever received (this process or saved). */
    this.hasAnswer = false;
    this.checkUrl = this._checkUrl();
    /** @type {Saved} */
    this.saved = this._restore(savedFile, reading);
  }

  /** Whether a check is in flight. */
  get checking() {
    return this.check.name === 'in-flight';
  }

  /**
   * Handles one event at one reading of the device clock; returns what the owner does, in order.
   * @param {Event} event
   * @param {Reading} r
   * @returns {Action[]}
   */
  handle(event, r) {
    /** @type {Action[]} */
    const out = [];
    this._out = out;
    if (event.type === 'shutdown') {
      this._shutdown(r);
      return out;
    }
    this._now(r);
    switch (event.type) {
      case 'start': this._start(r); break;
      case 'foreground': this._foreground(r); break;
      case 'background': this._background(r); break;
      case 'network': this._setOnline(event.online, r); break;
      case 'refresh': this._refresh(r); break;
      case 'later': this._later(); break;
      case 'skip': this._skip(r); break;
      case 'track': this._track(event.module, event.items, r); break;
      case 'timer': this._fired(r); break;
      case 'answered':
        if (event.purpose.kind === 'check') this._checkAnswered(event.response, r);
        else this._ingested(event.purpose, event.response.status >= 200 && event.response.status < 300, `the server answered ${event.response.status}`, r);
        break;
      case 'unanswered': {
        const e = /** @type {any} */ (event.error);
        if (event.purpose.kind === 'check') this._checkFailed({ kind: 'connection', status: null, reason: String(e?.message ?? e) }, r);
        else this._ingested(event.purpose, false, e?.message ?? e, r);
        break;
      }
    }
    this._afterEvent(r);
    return out;
  }

  // ---- events -------------------------------------------------------------------------

  // App start (page load): the saved answer applies at once, then a check goes out.
  /** @private @param {Reading} r */
  _start(r) {
    this.running = true;
    this.visible = true;
    this.deferredByLater = false;
    this._ingestFailed.clear();
    this.check = forgiven(this.check);
    if (!this._updatesBelong()) {
      // A saved update belongs to one app version: a new install never sees its old answer.
      const had = this.saved.required || this.saved.optional || this.hasAnswer;
      this.saved.required = null;
      this.saved.optional = null;
      this.saved.etag = null;
      this.saved.appVersion = this.config.appVersion;
      this.saved.build = this.config.build;
      if (had) this._persist(r);
    }
    this._notify(r); // observers see the saved answer before any request
    this._check(true, r);
  }

  // The tab became visible: fetch when the saved answer outlived its lifetime.
  /** @private @param {Reading} r */
  _foreground(r) {
    if (!this.running) return;
    this.visible = true;
    if (this._isStale(r)) this._check(true, r);
  }

  // The tab was hidden: polling stops until it is visible again.
  /** @private @param {Reading} r */
  _background(r) {
    this.visible = false;
    this._persist(r);
  }

  // The browser's online/offline events. Back online counts as a return to the foreground on
  // the web (a stale answer is fetched), and a check missed offline goes out now.
  /**
   * @param {boolean} online
   * @param {Reading} r
   * @private
   */
  _setOnline(online, r) {
    const cameOnline = online && !this.online;
    this.online = online;
    if (cameOnline) this._ingestFailed.clear();
    if (!online) this._persist(r);
    if (cameOnline && this.running) {
      const pollDue = this.polling && this._nextPoll(r) <= r.mono;
      if (owes(this.check) || pollDue || (this.visible && this._isStale(r))) this._check(true, r);
    }
  }

  // refresh(): checks now; offline or with release control off nothing goes out.
  /** @private @param {Reading} r */
  _refresh(r) {
    if (this.running && this.config.enabled && this.online) this._check(false, r);
  }

  // Later: the optional prompt hides until the next start.
  /** @private */
  _later() {
    this.deferredByLater = true;
  }

  // Skip: this rule's optional prompt hides for good (remembered in storage).
  /** @private @param {Reading} r */
  _skip(r) {
    const rule = this.state(r).optional_update?.rule;
    if (rule !== undefined && !this.saved.skipped.includes(rule)) {
      this.saved.skipped.push(rule);
      if (this.saved.skipped.length > MAX_SKIPPED) this.saved.skipped.shift();
      this._persist(r);
    }
  }

  // Items for a module's queue; kept while the app is not running, for the next start.
  /**
   * @param {Module} module
   * @param {unknown[]} list
   * @param {Reading} r
   * @private
   */
  _track(module, list, r) {
    if (!list.length) return;
    (this.saved.queue[module] ??= []).push(...list);
    this._ingestFailed.delete(module);
    this._persist(r);
  }

  // The page goes away: timers stop, answers still in flight are dropped (the owner drops
  // them too: it never hands back the result of a request from before).
  /** @private @param {Reading} r */
  _shutdown(r) {
    if (this.running) this._persist(r);
    this.running = false;
    this.visible = false;
    this.check = abandoned(this.check);
    this._ingestInFlight.clear();
    this._timerAt = null;
    this._out.push({ type: 'timer', delayMs: null });
  }

  /** @private @param {Reading} r */
  _fired(r) {
    this._timerAt = null;
    this._ingestFailed.clear();
    if (this.polling && this._nextPoll(r) <= r.mono) this._check(true, r);
  }

  // What follows every event: deadlines, a clock change saved, queued items, the timer.
  /** @private @param {Reading} r */
  _afterEvent(r) {
    this._settleDeadline(r);
    if (this._clockJumped) {
      this._clockJumped = false;
      this._persist(r);
    }
    this._flushQueues(r);
    this._schedule(r);
    this._notify(r);
  }

  /**
   * Whether `module` is paused by a saved SDK switch.
   * @param {PausableModule} module
   * @param {Reading} r
   */
  isPaused(module, r) {
    this._now(r);
    return this._paused(r).includes(module);
  }

  /** Whether the SDK checks every lifetime: a visible tab with a lifetime of at most 60 s. */
  get polling() {
    return this.running && this.visible && this.config.enabled && this.saved.lifetime <= 60;
  }

  // ---- state --------------------------------------------------------------------------

  /**
   * What the app shows now, from the saved answer and the offline rules.
   * @param {Reading} r
   * @returns {LerixState}
   */
  state(r) {
    this._now(r);
    const serverNow = this._serverNow(r);
    const { enabled } = this.config;
    let required = null;
    let optional = null;
    const updatesApply = this._updatesBelong() || !this.hasAnswer;
    if (enabled && this.config.appVersion && updatesApply) {
      required = this.saved.required ?? this._turnedRequired(r);
      // A recommended update that turned required is no longer offered as optional.
      optional = this.saved.required || !required ? this._freshOptional(r) : null;
    }
    const maintenance = enabled
      ? this.saved.maintenance.filter((w) => timeOf(w.ends_at) > serverNow)
        .sort((a, b) => timeOf(a.starts_at) - timeOf(b.starts_at))
      : [];
    const active = maintenance.find((w) => timeOf(w.starts_at) <= serverNow);
    /** @type {LerixState['screen']} */
    let screen = 'none';
    if (required) screen = 'required_update';
    else if (active) screen = 'maintenance';
    else if (optional && !this.deferredByLater && !this.saved.skipped.includes(optional.rule)) screen = 'optional_update';
    return {
      screen,
      required_update: required,
      optional_update: optional,
      maintenance,
      active_maintenance: active ?? null,
      paused_modules: this._paused(r),
      queued: /** @type {Record<Module, number>} */ (Object.fromEntries(MODULES.map((m) => [m, this.saved.queue[m]?.length ?? 0]))),
      last_success: this._lastSuccessMono === null ? null : formatTime(this._wallAt(this._lastSuccessMono, r)),
      etag: this.saved.etag,
      polling: this.polling,
    };
  }

  // ---- the check ----------------------------------------------------------------------

  // joining: a need the in-flight check meets (start, visible, poll) joins it; refresh() says
  // the state may have changed since that check left, so one more follows it.
  /**
   * @param {boolean} joining
   * @param {Reading} r
   * @private
   */
  _check(joining, r) {
    if (!this.running || !this.config.enabled) return;
    if (!this.online) {
      this.check = missedOffline(this.check);
      return;
    }
    if (this.checking) {
      if (!joining) this.check = followedByAnother(this.check);
      return;
    }
    this._sendCheck(r);
  }

  /** @private @param {Reading} r */
  _sendCheck(r) {
    this.check = inFlight('done');
    this._lastAttemptMono = r.mono;
    this.stats.checks += 1;
    /** @type {Record<string, string>} */
    const headers = { accept: 'application/json' };
    if (this.saved.etag) headers['if-none-match'] = this.saved.etag;
    this._out.push({ type: 'send', purpose: { kind: 'check' }, request: { method: 'GET', url: this.checkUrl, headers } });
  }

  /**
   * @param {TransportResponse} response
   * @param {Reading} r
   * @private
   */
  _checkAnswered(response, r) {
    this._endCheck(() => {
      if (response.status === 200) {
        let parts;
        try {
          parts = parseAnswer(response.body);
        } catch (e) {
          this._recordFailure({ kind: 'body', status: 200, reason: /** @type {Error} */ (e).message }, r);
          return;
        }
        this._apply(parts, response, r);
      } else if (response.status === 304) {
        this.stats.notModified += 1;
        this._renew(response, r);
      } else {
        this._recordFailure({ kind: 'status', status: response.status, reason: statusReason(response.status, response.body) }, r);
      }
    }, r);
  }

  /**
   * @param {CheckFailure} failure
   * @param {Reading} r
   * @private
   */
  _checkFailed(failure, r) {
    this._endCheck(() => this._recordFailure(failure, r), r);
  }

  /**
   * The check's result is in: `handle` reads it, then what the phase says follows.
   * @param {() => void} handle
   * @param {Reading} r
   * @private
   */
  _endCheck(handle, r) {
    const after = this.check.name === 'in-flight' ? this.check.after : 'done';
    this.check = after === 'owed' || after === 'again-or-owed' ? OWED : IDLE;
    try {
      handle();
    } catch (e) {
      // Whatever goes wrong reading an answer stays inside the SDK.
      this._recordFailure({ kind: 'body', status: null, reason: `cannot read the answer: ${/** @type {any} */ (e)?.message ?? e}` }, r);
    }
    if (after === 'again' || after === 'again-or-owed') {
      if (this.running && this.config.enabled && this.online) this._sendCheck(r);
    }
    if (!this.checking) this._out.push({ type: 'checks-settled' });
  }

  /**
   * @param {CheckFailure} failure
   * @param {Reading} r
   * @private
   */
  _recordFailure(failure, r) {
    this.stats.failedChecks += 1;
    const repeated = this.lastFailure && this.lastFailure.kind === failure.kind && this.lastFailure.reason === failure.reason;
    this.lastFailure = { ...failure, at: formatTime(r.wall) };
    // Said once per new reason, not on every poll of an outage.
    if (!(repeated && this._failedSinceSuccess)) this._log(`lerix: check failed (${failure.kind}): ${failure.reason}`);
    this._failedSinceSuccess = true;
  }

  // Takes every usable part of a 200; an unusable part keeps its saved value.
  /**
   * @param {AnswerParts} parts
   * @param {TransportResponse} response
   * @param {Reading} r
   * @private
   */
  _apply(parts, response, r) {
    const serverTime = parts.serverTime ?? parseTime(response.headers['lerix-server-time']);
    if (serverTime !== null && serverTime !== undefined) this._anchor = { mono: r.mono, server: serverTime };
    const lifetime = parts.lifetime ?? maxAge(response.headers['cache-control']);
    if (lifetime) this.saved.lifetime = lifetime;
    if (this.config.appVersion) {
      if (parts.required !== undefined) this.saved.required = parts.required;
      if (parts.optional !== undefined) this.saved.optional = parts.optional;
    } else {
      // A device without a version is never blocked by an update rule, whatever arrives.
      this.saved.required = null;
      this.saved.optional = null;
    }
    if (parts.maintenance) this.saved.maintenance = parts.maintenance;
    if (parts.switches) this.saved.switches = parts.switches;
    // A 304 on an answer the SDK could not read whole would freeze the part it never read.
    this.saved.etag = parts.complete ? response.headers.etag ?? null : null;
    this._succeeded(r);
  }

  // A 304: the saved answer is current again, with a new lifetime and clock reference.
  /**
   * @param {TransportResponse} response
   * @param {Reading} r
   * @private
   */
  _renew(response, r) {
    const serverTime = parseTime(response.headers['lerix-server-time']);
    if (serverTime !== null) this._anchor = { mono: r.mono, server: serverTime };
    const lifetime = maxAge(response.headers['cache-control']);
    if (lifetime) this.saved.lifetime = lifetime;
    this._succeeded(r);
  }

  /** @private @param {Reading} r */
  _succeeded(r) {
    this._receivedMono = r.mono;
    this._lastSuccessMono = r.mono;
    this.hasAnswer = true;
    this._failedSinceSuccess = false;
    this._ingestFailed.clear();
    this.saved.appVersion = this.config.appVersion;
    this.saved.build = this.config.build;
    this._persist(r);
  }

  // ---- module queues ------------------------------------------------------------------

  /** @private @param {Reading} r */
  _flushQueues(r) {
    // With nothing saved the device knows no switch yet: items wait for the first answer,
    // which may pause their module. Release control off never gets one, so it does not wait.
    if (!this.running || !this.online || (this.config.enabled && !this.hasAnswer)) return;
    /** @type {string[]} */
    const paused = this._paused(r);
    for (const module of MODULES) {
      const items = this.saved.queue[module];
      if (!items?.length || paused.includes(module) || this._ingestInFlight.has(module) || this._ingestFailed.has(module)) continue;
      const batch = items.slice(0, INGEST_BATCH);
      this._ingestInFlight.add(module);
      const request = {
        method: 'POST',
        url: `${this._projectUrl()}/ingest/${module}`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(batch),
      };
      this._out.push({ type: 'send', purpose: { kind: 'ingest', module, count: batch.length }, request });
    }
  }

  /**
   * An ingest request finished: the batch leaves the queue, or stays for the next opportunity.
   * @param {{ module: Module, count: number }} batch
   * @param {boolean} ok
   * @param {unknown} why
   * @param {Reading} r
   * @private
   */
  _ingested({ module, count }, ok, why, r) {
    this._ingestInFlight.delete(module);
    if (!ok) {
      this._log(`lerix: ${module} not sent, kept queued: ${why}`);
      this._ingestFailed.add(module);
      return;
    }
    // Items tracked while this batch flew were appended behind it: drop just the batch.
    this.saved.queue[module]?.splice(0, count);
    if (!this.saved.queue[module]?.length) delete this.saved.queue[module];
    this.stats.sent[module] += count;
    this._persist(r);
  }

  /**
   * @param {Reading} r
   * @returns {PausableModule[]}
   * @private
   */
  _paused(r) {
    const serverNow = this._serverNow(r);
    /** @type {Set<string>} */
    const paused = new Set();
    for (const s of this.saved.switches) if (timeOf(s.ends_at) > serverNow) s.modules.forEach((m) => paused.add(m));
    return PAUSABLE_MODULES.filter((m) => paused.has(m));
  }

  // ---- offline rules ------------------------------------------------------------------

  /** @private @param {Reading} r */
  _isStale(r) {
    if (this._receivedMono === null) return true;
    const age = r.mono - this._receivedMono;
    // A receipt in the device's future (the clock was set back before this start) has no
    // knowable age: it never looks fresh.
    return age < 0 || age >= this.saved.lifetime * 1000;
  }

  /** @private @param {Reading} r */
  _freshOptional(r) {
    if (!this.saved.optional || this._lastSuccessMono === null) return null;
    const age = r.mono - this._lastSuccessMono;
    return age >= 0 && age < OPTIONAL_MAX_AGE_MS ? this.saved.optional : null;
  }

  // Deadlines pass offline (Android and Flutter): a saved recommended update whose deadline
  // passed before its 7-day drop is the required update the server would now answer.
  /**
   * @param {Reading} r
   * @returns {RequiredUpdate | null}
   * @private
   */
  _turnedRequired(r) {
    const o = this.saved.optional;
    if (!this.config.deadlinesOffline || !o || o.kind !== 'recommended' || !o.becomes_required_on) return null;
    const deadline = timeOf(o.becomes_required_on);
    if (deadline > this._serverNow(r) || this._lastSuccessMono === null) return null;
    const deadlineMono = this._monoAtServer(deadline);
    if (deadlineMono - this._lastSuccessMono >= OPTIONAL_MAX_AGE_MS) return null;
    return { rule: o.rule, below: o.below, store_url: o.store_url, message: o.message };
  }

  // Once turned, it is saved as required: it keeps blocking through restarts and clock
  // changes, and past the 7 days; only a successful check lifts it.
  /** @private @param {Reading} r */
  _settleDeadline(r) {
    if (!this.saved.optional || this.saved.required || !this.config.enabled || !this.config.appVersion || !this._updatesBelong()) return;
    const turned = this._turnedRequired(r);
    if (!turned) return;
    this.saved.required = turned;
    this.saved.optional = null;
    this._persist(r);
  }

  /** @private */
  _updatesBelong() {
    return (this.saved.appVersion ?? '') === (this.config.appVersion ?? '') && (this.saved.build ?? '') === (this.config.build ?? '');
  }

  // ---- time ---------------------------------------------------------------------------

  // Follows one reading of the clock. A wall clock that moved unlike the monotonic one was
  // set by the user: nothing in memory depends on it, but the saved file's device times do,
  // so it is rewritten with the new reading.
  /** @private @param {Reading} r */
  _now(r) {
    const last = this._lastReading;
    this._lastReading = r;
    if (last && Math.abs((r.wall - r.mono) - (last.wall - last.mono)) >= JUMP_TOLERANCE_MS && this.hasAnswer) this._clockJumped = true;
    return r;
  }

  // The server's time as the device best knows it: the last answer's, moved on monotonically.
  /** @private @param {Reading} r */
  _serverNow(r) {
    return this._anchor ? this._anchor.server + (r.mono - this._anchor.mono) : r.wall;
  }

  /** @private @param {number} serverTime */
  _monoAtServer(serverTime) {
    const last = /** @type {Reading} */ (this._lastReading);
    return this._anchor ? this._anchor.mono + (serverTime - this._anchor.server) : serverTime - last.wall + last.mono;
  }

  // What the wall clock read at monotonic instant `mono`, as it is set now.
  /**
   * @param {number} mono
   * @param {Reading} r
   * @private
   */
  _wallAt(mono, r) {
    return r.wall - (r.mono - mono);
  }

  /** @private @param {Reading} r */
  _nextPoll(r) {
    const interval = Math.max(this.saved.lifetime, MIN_POLL_SECONDS) * 1000;
    return this._lastAttemptMono === undefined ? r.mono + interval : this._lastAttemptMono + interval;
  }

  // The one timer: the next poll, a window's start or end, a switch's end (queues flush), the
  // optional update's drop, a deadline. Waits by the monotonic clock.
  /** @private @param {Reading} r */
  _schedule(r) {
    /** @type {number | null} */
    let next = null;
    /** @param {number} mono */
    const consider = (mono) => {
      if (mono > r.mono && (next === null || mono < next)) next = mono;
    };
    if (this.running) {
      if (this.polling && this.online) consider(this._nextPoll(r));
      if (this.config.enabled) {
        for (const w of this.saved.maintenance) {
          consider(this._monoAtServer(timeOf(w.starts_at)));
          consider(this._monoAtServer(timeOf(w.ends_at)));
        }
        if (this.saved.optional && this._lastSuccessMono !== null) consider(this._lastSuccessMono + OPTIONAL_MAX_AGE_MS);
        const deadline = parseTime(this.saved.optional?.becomes_required_on);
        if (this.config.deadlinesOffline && this.saved.optional?.kind === 'recommended' && deadline !== null) consider(this._monoAtServer(deadline));
      }
      for (const s of this.saved.switches) consider(this._monoAtServer(timeOf(s.ends_at)));
    }
    if (next !== this._timerAt) {
      this._out.push({ type: 'timer', delayMs: next === null ? null : next - r.mono });
      this._timerAt = next;
    }
  }

  // ---- output -------------------------------------------------------------------------

  /** @private @param {string} line */
  _log(line) {
    this._out.push({ type: 'log', line });
  }

  /** @private @param {Reading} r */
  _notify(r) {
    if (this.reportsState) this._out.push({ type: 'notify', state: this.state(r) });
  }

  /** @private */
  _projectUrl() {
    return `${this.config.baseUrl}/v1/projects/${encodeURIComponent(this.config.project)}`;
  }

  /** @private */
  _checkUrl() {
    const q = new URLSearchParams();
    const c = this.config;
    for (const [name, value] of [['platform', c.platform], ['version', c.appVersion], ['build', c.build], ['sdk', c.sdk], ['sdk_version', c.sdkVersion]]) {
      if (value !== null && value !== undefined && value !== '') q.append(/** @type {string} */ (name), value);
    }
    return `${this._projectUrl()}/release-control?${q}`;
  }

  // ---- the saved file -----------------------------------------------------------------

  // Reads the saved file part by part, like an answer: a damaged part is lost, never the rest.
  /**
   * @param {unknown} f
   * @param {Reading} reading
   * @returns {Saved}
   * @private
   */
  _restore(f, reading) {
    /** @type {Saved} */
    const s = { required: null, optional: null, maintenance: [], switches: [], etag: null, lifetime: DEFAULT_LIFETIME,
      appVersion: null, build: null, skipped: [], queue: {} };
    const r = this._now(reading);
    if (!isObject(f)) return s;
    s.required = readRequired(f.required_update) ?? null;
    s.optional = readOptional(f.optional_update) ?? null;
    if (Array.isArray(f.maintenance)) s.maintenance = f.maintenance.map(readWindow).filter(isPresent);
    if (Array.isArray(f.sdk_switch)) s.switches = f.sdk_switch.map(readSwitch).filter(isPresent);
    if (typeof f.etag === 'string') s.etag = f.etag;
    if (Number.isInteger(f.lifetime) && /** @type {number} */ (f.lifetime) > 0) s.lifetime = /** @type {number} */ (f.lifetime);
    if (typeof f.app_version === 'string') s.appVersion = f.app_version;
    if (typeof f.build === 'string') s.build = f.build;
    if (Array.isArray(f.skipped_rules)) s.skipped = f.skipped_rules.filter((x) => typeof x === 'string');
    const queue = f.queue;
    if (isObject(queue)) {
      for (const m of MODULES) {
        const items = queue[m];
        if (Array.isArray(items) && items.length) s.queue[m] = items;
      }
    }
    // Device times become monotonic instants of this process; one in the device's future
    // gets a negative age, which no rule takes as fresh.
    if (typeof f.server_offset_ms === 'number' && Number.isFinite(f.server_offset_ms)) this._anchor = { mono: r.mono, server: r.wall + f.server_offset_ms };
    const received = parseTime(f.received_at);
    if (received !== null) {
      this._receivedMono = r.mono - (r.wall - received);
      this.hasAnswer = true;
    }
    const success = parseTime(f.last_success);
    if (success !== null) this._lastSuccessMono = r.mono - (r.wall - success);
    return s;
  }

  /** @private @param {Reading} r */
  _persist(r) {
    const s = this.saved;
    /** @param {number | null} mono */
    const wall = (mono) => (mono === null ? null : formatTime(this._wallAt(mono, r)));
    const file = {
      format: 1,
      required_update: s.required,
      optional_update: s.optional,
      maintenance: s.maintenance,
      sdk_switch: s.switches,
      etag: s.etag,
      lifetime: s.lifetime,
      server_offset_ms: this._anchor ? Math.round(this._serverNow(r) - r.wall) : null,
      received_at: wall(this._receivedMono),
      last_success: wall(this._lastSuccessMono),
      app_version: s.appVersion,
      build: s.build,
      skipped_rules: s.skipped,
      queue: s.queue,
    };
    this._out.push({ type: 'persist', text: JSON.stringify(file) });
  }
}
