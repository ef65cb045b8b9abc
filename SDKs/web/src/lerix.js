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
// All time comes from the injected clock, all HTTP from the injected transport, all
// persistence from the injected storage. Events are synchronous; the HTTP they start runs in
// the background, and `idle()` resolves once every request started has finished.
//
// How time is kept: within one process every interval (an answer's age, the poll, the 7-day
// drop) and the server's time are measured on the monotonic clock from the moment of the last
// answer, so a user setting the wall clock changes nothing. Only the saved file speaks wall
// clock (the next process has no shared monotonic clock): it stores the server-minus-device
// offset and the device times of receipt and last success, as they read when written.

import {
  MODULES, PAUSABLE_MODULES, formatTime, isObject, maxAge, parseAnswer, parseTime,
  readOptional, readRequired, readSwitch, readWindow, statusReason,
} from './answer.js';
import { MemoryStorage, fetchTransport, systemClock } from './io.js';

export const SDK_NAME = 'js';
export const SDK_VERSION = '1.0.0';
export const STORAGE_KEY = 'lerix-release-control.json';

const DAY_MS = 86_400_000;
const OPTIONAL_MAX_AGE_MS = 7 * DAY_MS;
const DEFAULT_LIFETIME = 300;
const MIN_POLL_SECONDS = 10; // never poll faster, whatever lifetime an answer sets
const JUMP_TOLERANCE_MS = 100; // smaller wall/monotonic drift is reading jitter, not the user
const INGEST_BATCH = 500;
const MAX_SKIPPED = 100;

// Accepts camelCase or the adapter's snake_case; fills the web defaults.
export function normalizeConfig(c) {
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

export class Lerix {
  constructor({ config, clock = systemClock, transport = fetchTransport(), storage = new MemoryStorage(), online = true, log = null }) {
    this.config = normalizeConfig(config);
    this.clock = clock;
    this.transport = transport;
    this.storage = storage;
    this.log = log;
    this.online = online;
    this.running = false;
    this.visible = false;
    this.deferredByLater = false;
    this.stats = { checks: 0, notModified: 0, failedChecks: 0, sent: Object.fromEntries(MODULES.map((m) => [m, 0])) };
    this.lastFailure = null;
    this._failedSinceSuccess = false;
    this._pending = new Set();
    this._checkInFlight = false;
    this._checkAgain = false;
    this._missedCheck = false;
    this._ingestInFlight = new Set();
    // Modules whose last send failed: retried at the next opportunity (start, back online, a
    // successful check, a timer, new items), never in a loop against a failing server.
    this._ingestFailed = new Set();
    this._timer = null;
    this._timerAt = null;
    this._generation = 0; // bumped on shutdown: answers to an ended process are not applied
    this._observers = new Set();
    this._lastReading = null;
    this.checkUrl = this._checkUrl();
    this._load();
  }

  // ---- events -------------------------------------------------------------------------

  // App start (page load): the saved answer applies at once, then a check goes out.
  start() {
    this._event(() => {
      this.running = true;
      this.visible = true;
      this.deferredByLater = false;
      this._ingestFailed.clear();
      this._missedCheck = false;
      if (!this._updatesBelong()) {
        // A saved update belongs to one app version: a new install never sees its old answer.
        const had = this.saved.required || this.saved.optional || this.hasAnswer;
        this.saved.required = null;
        this.saved.optional = null;
        this.saved.etag = null;
        this.saved.appVersion = this.config.appVersion;
        this.saved.build = this.config.build;
        if (had) this._persist();
      }
      this._notify(); // observers see the saved answer before any request
      this._check(true);
    });
  }

  // The tab became visible: fetch when the saved answer outlived its lifetime.
  foreground() {
    this._event(() => {
      if (!this.running) return;
      this.visible = true;
      if (this._isStale(this._now())) this._check(true);
    });
  }

  // The tab was hidden: polling stops until it is visible again.
  background() {
    this._event(() => {
      this.visible = false;
      this._persist();
    });
  }

  // The browser's online/offline events. Back online counts as a return to the foreground on
  // the web (a stale answer is fetched), and a check missed offline goes out now.
  setOnline(online) {
    this._event(() => {
      const cameOnline = online && !this.online;
      this.online = online;
      if (cameOnline) this._ingestFailed.clear();
      if (!online) this._persist();
      if (cameOnline && this.running) {
        const r = this._now();
        const pollDue = this.polling && this._nextPoll(r) <= r.mono;
        if (this._missedCheck || pollDue || (this.visible && this._isStale(r))) this._check(true);
      }
    });
  }

  // Checks now; resolves with the state once that check (and any queued behind it) finished.
  // Offline or with release control off it resolves at once with the saved state.
  refresh() {
    this._event(() => {
      if (this.running && this.config.enabled && this.online) this._check(false);
    });
    return this._checksSettled().then(() => this.state);
  }

  // Later: the optional prompt hides until the next start.
  later() {
    this._event(() => {
      this.deferredByLater = true;
    });
  }

  // Skip: this rule's optional prompt hides for good (remembered in storage).
  skip() {
    this._event(() => {
      const rule = this.state.optional_update?.rule;
      if (rule !== undefined && !this.saved.skipped.includes(rule)) {
        this.saved.skipped.push(rule);
        if (this.saved.skipped.length > MAX_SKIPPED) this.saved.skipped.shift();
        this._persist();
      }
    });
  }

  // Queues items for a module; they go to the ingest endpoint unless a switch pauses it. Also
  // works while the app is not running: the items wait in storage for the next start.
  track(module, items) {
    if (!MODULES.includes(module)) throw new TypeError(`unknown module ${module}`);
    const list = Array.isArray(items) ? items : [items];
    this._event(() => {
      if (!list.length) return;
      (this.saved.queue[module] ??= []).push(...list);
      this._ingestFailed.delete(module);
      this._persist();
    });
  }

  // The page goes away: timers stop, answers still in flight are dropped.
  shutdown() {
    if (this.running) this._persist();
    this.running = false;
    this.visible = false;
    this._generation += 1;
    this._checkInFlight = false;
    this._checkAgain = false;
    this._ingestInFlight.clear();
    this._setTimer(null);
  }

  // Resolves once every request started so far (and those their answers started) finished.
  async idle() {
    while (this._pending.size) await Promise.allSettled([...this._pending]);
  }

  onChange(observer) {
    this._observers.add(observer);
    return () => this._observers.delete(observer);
  }

  isPaused(module) {
    return this._paused(this._now()).includes(module);
  }

  get polling() {
    return this.running && this.visible && this.config.enabled && this.saved.lifetime <= 60;
  }

  // ---- state --------------------------------------------------------------------------

  // What the app shows now, from the saved answer and the offline rules.
  get state() {
    const r = this._now();
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
      ? this.saved.maintenance.filter((w) => parseTime(w.ends_at) > serverNow)
        .sort((a, b) => parseTime(a.starts_at) - parseTime(b.starts_at))
      : [];
    const active = maintenance.find((w) => parseTime(w.starts_at) <= serverNow);
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
      queued: Object.fromEntries(MODULES.map((m) => [m, this.saved.queue[m]?.length ?? 0])),
      last_success: this._lastSuccessMono === null ? null : formatTime(this._wallAt(this._lastSuccessMono, r)),
      etag: this.saved.etag,
      polling: this.polling,
    };
  }

  // ---- the check ----------------------------------------------------------------------

  // joining: a need the in-flight check meets (start, visible, poll) joins it; refresh() says
  // the state may have changed since that check left, so one more follows it.
  _check(joining) {
    if (!this.running || !this.config.enabled) return;
    if (!this.online) {
      this._missedCheck = true;
      return;
    }
    if (this._checkInFlight) {
      if (!joining) this._checkAgain = true;
      return;
    }
    this._sendCheck();
  }

  _sendCheck() {
    const r = this._now();
    this._missedCheck = false;
    this._checkInFlight = true;
    this._lastAttemptMono = r.mono;
    this.stats.checks += 1;
    const headers = { accept: 'application/json' };
    if (this.saved.etag) headers['if-none-match'] = this.saved.etag;
    const generation = this._generation;
    this._spawn(this.transport({ method: 'GET', url: this.checkUrl, headers }), generation,
      (response) => this._checkAnswered(response), (error) => this._checkFailed({ kind: 'connection', status: null, reason: String(error?.message ?? error) }));
  }

  _checkAnswered(response) {
    this._endCheck(() => {
      if (response.status === 200) {
        let parts;
        try {
          parts = parseAnswer(response.body);
        } catch (e) {
          this._recordFailure({ kind: 'body', status: 200, reason: e.message });
          return;
        }
        this._apply(parts, response);
      } else if (response.status === 304) {
        this.stats.notModified += 1;
        this._renew(response);
      } else {
        this._recordFailure({ kind: 'status', status: response.status, reason: statusReason(response.status, response.body) });
      }
    });
  }

  _checkFailed(failure) {
    this._endCheck(() => this._recordFailure(failure));
  }

  _endCheck(handle) {
    this._event(() => {
      this._checkInFlight = false;
      try {
        handle();
      } catch (e) {
        // Whatever goes wrong reading an answer stays inside the SDK.
        this._recordFailure({ kind: 'body', status: null, reason: `cannot read the answer: ${e?.message ?? e}` });
      }
      if (this._checkAgain) {
        this._checkAgain = false;
        if (this.running && this.config.enabled && this.online) this._sendCheck();
      }
      if (!this._checkInFlight) this._settleWaiters();
    });
  }

  _recordFailure(failure) {
    const r = this._now();
    this.stats.failedChecks += 1;
    const repeated = this.lastFailure && this.lastFailure.kind === failure.kind && this.lastFailure.reason === failure.reason;
    this.lastFailure = { ...failure, at: formatTime(r.wall) };
    // Said once per new reason, not on every poll of an outage.
    if (!(repeated && this._failedSinceSuccess)) this.log?.(`lerix: check failed (${failure.kind}): ${failure.reason}`);
    this._failedSinceSuccess = true;
  }

  // Takes every usable part of a 200; an unusable part keeps its saved value.
  _apply(parts, response) {
    const r = this._now();
    const serverTime = parts.serverTime ?? parseTime(response.headers['lerix-server-time']);
    if (serverTime !== null && serverTime !== undefined) this._anchor = { mono: r.mono, server: serverTime };
    const lifetime = parts.lifetime ?? maxAge(response.headers['cache-control']);
    if (lifetime) this.saved.lifetime = lifetime;
    if (this.config.appVersion) {
      if ('required' in parts) this.saved.required = parts.required;
      if ('optional' in parts) this.saved.optional = parts.optional;
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
  _renew(response) {
    const r = this._now();
    const serverTime = parseTime(response.headers['lerix-server-time']);
    if (serverTime !== null) this._anchor = { mono: r.mono, server: serverTime };
    const lifetime = maxAge(response.headers['cache-control']);
    if (lifetime) this.saved.lifetime = lifetime;
    this._succeeded(r);
  }

  _succeeded(r) {
    this._receivedMono = r.mono;
    this._lastSuccessMono = r.mono;
    this.hasAnswer = true;
    this._failedSinceSuccess = false;
    this._ingestFailed.clear();
    this.saved.appVersion = this.config.appVersion;
    this.saved.build = this.config.build;
    this._persist();
  }

  // ---- module queues ------------------------------------------------------------------

  _flushQueues(r) {
    // With nothing saved the device knows no switch yet: items wait for the first answer,
    // which may pause their module. Release control off never gets one, so it does not wait.
    if (!this.running || !this.online || (this.config.enabled && !this.hasAnswer)) return;
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
      const done = (ok, why) => this._event(() => {
        this._ingestInFlight.delete(module);
        if (!ok) {
          this.log?.(`lerix: ${module} not sent, kept queued: ${why}`);
          this._ingestFailed.add(module);
          return;
        }
        // Items tracked while this batch flew were appended behind it: drop just the batch.
        this.saved.queue[module]?.splice(0, batch.length);
        if (!this.saved.queue[module]?.length) delete this.saved.queue[module];
        this.stats.sent[module] += batch.length;
        this._persist();
      });
      this._spawn(this.transport(request), this._generation,
        (res) => done(res.status >= 200 && res.status < 300, `the server answered ${res.status}`),
        (e) => done(false, e?.message ?? e));
    }
  }

  _paused(r) {
    const serverNow = this._serverNow(r);
    const paused = new Set();
    for (const s of this.saved.switches) if (parseTime(s.ends_at) > serverNow) s.modules.forEach((m) => paused.add(m));
    return PAUSABLE_MODULES.filter((m) => paused.has(m));
  }

  // ---- offline rules ------------------------------------------------------------------

  _isStale(r) {
    if (this._receivedMono === null) return true;
    const age = r.mono - this._receivedMono;
    // A receipt in the device's future (the clock was set back before this start) has no
    // knowable age: it never looks fresh.
    return age < 0 || age >= this.saved.lifetime * 1000;
  }

  _freshOptional(r) {
    if (!this.saved.optional || this._lastSuccessMono === null) return null;
    const age = r.mono - this._lastSuccessMono;
    return age >= 0 && age < OPTIONAL_MAX_AGE_MS ? this.saved.optional : null;
  }

  // Deadlines pass offline (Android and Flutter): a saved recommended update whose deadline
  // passed before its 7-day drop is the required update the server would now answer.
  _turnedRequired(r) {
    const o = this.saved.optional;
    if (!this.config.deadlinesOffline || !o || o.kind !== 'recommended' || !o.becomes_required_on) return null;
    const deadline = parseTime(o.becomes_required_on);
    if (deadline > this._serverNow(r) || this._lastSuccessMono === null) return null;
    const deadlineMono = this._monoAtServer(deadline);
    if (deadlineMono - this._lastSuccessMono >= OPTIONAL_MAX_AGE_MS) return null;
    return { rule: o.rule, below: o.below, store_url: o.store_url, message: o.message };
  }

  // Once turned, it is saved as required: it keeps blocking through restarts and clock
  // changes, and past the 7 days; only a successful check lifts it.
  _settleDeadline(r) {
    if (!this.saved.optional || this.saved.required || !this.config.enabled || !this.config.appVersion || !this._updatesBelong()) return;
    const turned = this._turnedRequired(r);
    if (!turned) return;
    this.saved.required = turned;
    this.saved.optional = null;
    this._persist();
  }

  _updatesBelong() {
    return (this.saved.appVersion ?? '') === (this.config.appVersion ?? '') && (this.saved.build ?? '') === (this.config.build ?? '');
  }

  // ---- time ---------------------------------------------------------------------------

  // One reading of the clock. A wall clock that moved unlike the monotonic one was set by the
  // user: nothing in memory depends on it, but the saved file's device times do, so it is
  // rewritten with the new reading.
  _now() {
    const r = { wall: this.clock.now(), mono: this.clock.monotonic() };
    const last = this._lastReading;
    this._lastReading = r;
    if (last && Math.abs((r.wall - r.mono) - (last.wall - last.mono)) >= JUMP_TOLERANCE_MS && this.hasAnswer) this._clockJumped = true;
    return r;
  }

  // The server's time as the device best knows it: the last answer's, moved on monotonically.
  _serverNow(r) {
    return this._anchor ? this._anchor.server + (r.mono - this._anchor.mono) : r.wall;
  }

  _monoAtServer(serverTime) {
    return this._anchor ? this._anchor.mono + (serverTime - this._anchor.server) : serverTime - this._lastReading.wall + this._lastReading.mono;
  }

  // What the wall clock read at monotonic instant `mono`, as it is set now.
  _wallAt(mono, r) {
    return r.wall - (r.mono - mono);
  }

  _nextPoll(r) {
    const interval = Math.max(this.saved.lifetime, MIN_POLL_SECONDS) * 1000;
    return this._lastAttemptMono === undefined ? r.mono + interval : this._lastAttemptMono + interval;
  }

  // The one timer: the next poll, a window's start or end, a switch's end (queues flush), the
  // optional update's drop, a deadline. Waits by the monotonic clock.
  _schedule(r) {
    let next = null;
    const consider = (mono) => {
      if (mono > r.mono && (next === null || mono < next)) next = mono;
    };
    if (this.running) {
      if (this.polling && this.online) consider(this._nextPoll(r));
      if (this.config.enabled) {
        for (const w of this.saved.maintenance) {
          consider(this._monoAtServer(parseTime(w.starts_at)));
          consider(this._monoAtServer(parseTime(w.ends_at)));
        }
        if (this.saved.optional && this._lastSuccessMono !== null) consider(this._lastSuccessMono + OPTIONAL_MAX_AGE_MS);
        const deadline = parseTime(this.saved.optional?.becomes_required_on);
        if (this.config.deadlinesOffline && this.saved.optional?.kind === 'recommended' && deadline !== null) consider(this._monoAtServer(deadline));
      }
      for (const s of this.saved.switches) consider(this._monoAtServer(parseTime(s.ends_at)));
    }
    if (next !== this._timerAt) {
      this._setTimer(next === null ? null : next - r.mono);
      this._timerAt = next;
    }
  }

  _setTimer(delayMs) {
    this._timer?.cancel();
    this._timer = null;
    this._timerAt = null;
    if (delayMs !== null) this._timer = this.clock.setTimer(delayMs, () => this._fired());
  }

  _fired() {
    this._timer = null;
    this._timerAt = null;
    this._event(() => {
      const r = this._now();
      this._ingestFailed.clear();
      if (this.polling && this._nextPoll(r) <= r.mono) this._check(true);
    });
  }

  // ---- plumbing -----------------------------------------------------------------------

  // Runs one event, then what follows every event: deadlines, queued items, the timer.
  _event(body) {
    body();
    const r = this._now();
    this._settleDeadline(r);
    if (this._clockJumped) {
      this._clockJumped = false;
      this._persist();
    }
    this._flushQueues(r);
    this._schedule(r);
    this._notify();
  }

  _spawn(promise, generation, onValue, onError) {
    const p = promise.then(
      (v) => { if (generation === this._generation) onValue(v); },
      (e) => { if (generation === this._generation) onError(e); },
    ).catch((e) => this.log?.(`lerix: internal error: ${e?.stack ?? e}`));
    this._pending.add(p);
    p.finally(() => this._pending.delete(p));
  }

  _checksSettled() {
    if (!this._checkInFlight) return Promise.resolve();
    return new Promise((resolve) => (this._waiters ??= []).push(resolve));
  }

  _settleWaiters() {
    const waiting = this._waiters ?? [];
    this._waiters = [];
    waiting.forEach((resolve) => resolve());
  }

  _notify() {
    if (!this._observers.size) return;
    const s = this.state;
    const key = JSON.stringify(s);
    if (key === this._lastNotified) return;
    this._lastNotified = key;
    for (const o of this._observers) {
      try {
        o(s);
      } catch (e) {
        this.log?.(`lerix: observer threw: ${e?.message ?? e}`);
      }
    }
  }

  _projectUrl() {
    return `${this.config.baseUrl}/v1/projects/${encodeURIComponent(this.config.project)}`;
  }

  _checkUrl() {
    const q = new URLSearchParams();
    const c = this.config;
    for (const [name, value] of [['platform', c.platform], ['version', c.appVersion], ['build', c.build], ['sdk', c.sdk], ['sdk_version', c.sdkVersion]]) {
      if (value !== null && value !== undefined && value !== '') q.append(name, value);
    }
    return `${this._projectUrl()}/release-control?${q}`;
  }

  // ---- storage ------------------------------------------------------------------------

  // Reads the saved file part by part, like an answer: a damaged part is lost, never the rest.
  _load() {
    this.saved = { required: null, optional: null, maintenance: [], switches: [], etag: null, lifetime: DEFAULT_LIFETIME,
      appVersion: null, build: null, skipped: [], queue: {} };
    this._anchor = null;
    this._receivedMono = null;
    this._lastSuccessMono = null;
    this.hasAnswer = false;
    const r = this._now();
    let f = null;
    try {
      const text = this.storage.load(STORAGE_KEY);
      f = text ? JSON.parse(text) : null;
    } catch (e) {
      this.log?.(`lerix: the saved answer is unreadable, starting afresh: ${e?.message ?? e}`);
    }
    if (!isObject(f)) return;
    const s = this.saved;
    s.required = readRequired(f.required_update) ?? null;
    s.optional = readOptional(f.optional_update) ?? null;
    if (Array.isArray(f.maintenance)) s.maintenance = f.maintenance.map(readWindow).filter(Boolean);
    if (Array.isArray(f.sdk_switch)) s.switches = f.sdk_switch.map(readSwitch).filter(Boolean);
    if (typeof f.etag === 'string') s.etag = f.etag;
    if (Number.isInteger(f.lifetime) && f.lifetime > 0) s.lifetime = f.lifetime;
    if (typeof f.app_version === 'string') s.appVersion = f.app_version;
    if (typeof f.build === 'string') s.build = f.build;
    if (Array.isArray(f.skipped_rules)) s.skipped = f.skipped_rules.filter((x) => typeof x === 'string');
    if (isObject(f.queue)) {
      for (const m of MODULES) if (Array.isArray(f.queue[m]) && f.queue[m].length) s.queue[m] = f.queue[m];
    }
    // Device times become monotonic instants of this process; one in the device's future
    // gets a negative age, which no rule takes as fresh.
    if (Number.isFinite(f.server_offset_ms)) this._anchor = { mono: r.mono, server: r.wall + f.server_offset_ms };
    const received = parseTime(f.received_at);
    if (received !== null) {
      this._receivedMono = r.mono - (r.wall - received);
      this.hasAnswer = true;
    }
    const success = parseTime(f.last_success);
    if (success !== null) this._lastSuccessMono = r.mono - (r.wall - success);
  }

  _persist() {
    const r = this.clock ? { wall: this.clock.now(), mono: this.clock.monotonic() } : null;
    const s = this.saved;
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
    try {
      this.storage.save(STORAGE_KEY, JSON.stringify(file));
    } catch (e) {
      this.log?.(`lerix: cannot save the release control answer: ${e?.message ?? e}`);
    }
  }
}

export { MODULES, PAUSABLE_MODULES } from './answer.js';
export { MemoryStorage, LocalStorage, fetchTransport, systemClock } from './io.js';
