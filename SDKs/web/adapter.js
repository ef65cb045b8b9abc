#!/usr/bin/env node
// The web SDK behind the adapter protocol (docs/ADAPTER.md): JSON lines on stdin, one answer
// per line on stdout in order, logs on stderr. Devices live in virtual time: true time is the
// harness's, each device clock reads it plus its offset, and every command answers only once
// the HTTP work it started has finished.
//
//   node SDKs/web/adapter.js < commands.jsonl

import readline from 'node:readline';
import { pathToFileURL } from 'node:url';
import { Lerix, SDK_VERSION, MODULES, MemoryStorage, fetchTransport } from './src/lerix.js';
import { FileStorage } from './src/node-storage.js';
import { formatTime } from './src/answer.js';
import { CommandError, Fields, hint } from './src/protocol.js';

/** @typedef {import('./src/io.js').Transport} Transport */
/** @typedef {import('./src/io.js').Storage} Storage */
/** @typedef {import('./src/io.js').Clock} Clock */
/** @typedef {import('./src/lerix.js').LerixConfigInput} LerixConfigInput */
/** @typedef {import('./src/lerix.js').CheckFailure} CheckFailure */
/** @typedef {import('./src/answer.js').Module} Module */
/** @typedef {{ at: number, seq: number, fn: () => void, cancelled: boolean }} Timer */

export const ADAPTER_NAME = 'lerix-web-sdk';
// Only what this adapter truly emulates. No `push` (web pages get no silent push), no
// `offline_deadline` (the spec applies it on Android and Flutter only), no other platform.
export const CAPABILITIES = ['platform:web', 'flavor:native', 'refresh', 'track', 'install', 'clock_offset'];
// The adapter protocol versions this adapter speaks (ADAPTER.md, "Versions"); `hello` carries the runner's.
export const PROTOCOLS = [1];

const DEVICE = ['device'];
/** @type {Record<string, string[]>} */
const COMMAND_FIELDS = {
  hello: ['protocol'], next_deadline: [],
  create: ['device', 'now', 'config', 'replace'],
  launch: DEVICE, foreground: DEVICE, background: DEVICE, push: DEVICE, refresh: DEVICE,
  terminate: DEVICE, later: DEVICE, skip: DEVICE, state: DEVICE,
  network: ['device', 'online'],
  install: ['device', 'app_version', 'build'],
  track: ['device', 'module', 'count'],
  set_clock: ['device', 'clock_offset_seconds'],
  advance: ['to'],
};
const CONFIG_FIELDS = ['base_url', 'project', 'platform', 'flavor', 'app_version', 'build', 'sdk', 'sdk_version',
  'storage', 'push_token', 'enabled', 'clock_offset_seconds'];
const PLATFORMS = ['ios', 'android', 'macos', 'web'];
const FLAVORS = ['native', 'flutter'];
// Before any time a command can name (0000-01-01): the first `create` sets true time.
const BEFORE_ANY_TIME = -62_167_219_200_000;

// True time and every device's timers, in one deadline order.
export class Scheduler {
  constructor() {
    this.now = BEFORE_ANY_TIME;
    /** @type {Timer[]} */
    this.timers = [];
    this.seq = 0;
  }
  /**
   * @param {number} at true time, ms since the epoch
   * @param {() => void} fn
   */
  add(at, fn) {
    const timer = { at, seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => { timer.cancelled = true; } };
  }
  /** @returns {Timer | null} the earliest timer */
  next() {
    this.timers = this.timers.filter((t) => !t.cancelled);
    /** @type {Timer | null} */
    let best = null;
    for (const t of this.timers) if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    return best;
  }
  // Fires the earliest timers due at or before `to`, all those of one instant together; false
  // when none is due.
  /** @param {number} to */
  fireNext(to) {
    const first = this.next();
    if (!first || first.at > to) return false;
    this.now = Math.max(this.now, first.at);
    const due = this.timers.filter((t) => t.at === first.at).sort((a, b) => a.seq - b.seq);
    this.timers = this.timers.filter((t) => t.at !== first.at);
    for (const t of due) if (!t.cancelled) t.fn();
    return true;
  }
}

class Device {
  /**
   * @param {AdapterHost} host
   * @param {string} id
   * @param {LerixConfigInput} config
   * @param {number} offsetMs
   * @param {Storage} storage
   */
  constructor(host, id, config, offsetMs, storage) {
    this.host = host;
    this.id = id;
    this.config = config;
    this.offsetMs = offsetMs;
    this.storage = storage;
    this.online = true;
    this.running = false;
    this.earlier = { checks: 0, notModified: 0, failedChecks: 0, sent: /** @type {Record<Module, number>} */ (Object.fromEntries(MODULES.map((m) => [m, 0]))) };
    /** @type {CheckFailure | null} */
    this.earlierFailure = null;
    const scheduler = host.scheduler;
    // The device clock: true time plus the offset; the monotonic clock and timers run on true time.
    /** @type {Clock} */
    this.clock = {
      now: () => scheduler.now + this.offsetMs,
      monotonic: () => scheduler.now,
      setTimer: (delayMs, fn) => scheduler.add(scheduler.now + Math.max(0, delayMs), fn),
    };
    const send = host.transport;
    // Offline, the device's requests fail at once (the SDK also knows, and does not try).
    /** @type {Transport} */
    this.transport = (request) => (this.online ? send(request) : Promise.reject(new Error('the device is offline')));
    this.sdk = this.process();
  }

  process() {
    return new Lerix({
      config: this.config, clock: this.clock, transport: this.transport, storage: this.storage, online: this.online,
      log: (line) => this.host.log(`device ${this.id}: ${line}`),
    });
  }

  launch() {
    this.terminate();
    this.retire();
    this.sdk = this.process();
    this.running = true;
    this.sdk.start();
  }

  terminate() {
    if (!this.running) return;
    this.sdk.shutdown();
    this.running = false;
  }

  /**
   * @param {string | null} appVersion
   * @param {string | null} build
   */
  install(appVersion, build) {
    this.terminate();
    this.config = { ...this.config, app_version: appVersion, build };
    this.retire();
    this.sdk = this.process();
  }

  /** @param {boolean} online */
  setOnline(online) {
    this.online = online;
    if (this.running) this.sdk.setOnline(online);
  }

  // Keeps what the ending process counted: the counters span launches.
  retire() {
    const s = this.sdk.stats;
    this.earlier.checks += s.checks;
    this.earlier.notModified += s.notModified;
    this.earlier.failedChecks += s.failedChecks;
    for (const m of MODULES) this.earlier.sent[m] += s.sent[m];
    this.earlierFailure = this.sdk.lastFailure ?? this.earlierFailure;
  }

  stateFields() {
    const st = this.sdk.state;
    const s = this.sdk.stats;
    return {
      screen: st.screen,
      required_update: st.required_update,
      optional_update: st.optional_update,
      maintenance: st.maintenance,
      paused_modules: st.paused_modules,
      queued: st.queued,
      sent: Object.fromEntries(MODULES.map((m) => [m, this.earlier.sent[m] + s.sent[m]])),
      checks: this.earlier.checks + s.checks,
      not_modified: this.earlier.notModified + s.notModified,
      failed_checks: this.earlier.failedChecks + s.failedChecks,
      last_failure: this.sdk.lastFailure ?? this.earlierFailure,
      last_success: st.last_success,
      etag: st.etag,
      polling: st.polling,
      running: this.running,
      online: this.online,
      device_time: formatTime(this.clock.now()),
    };
  }
}

export class AdapterHost {
  // requestTimeoutSeconds: what the transport waits for an answer, told in `hello` (adapter-check
  // arms a delay past it).
  /**
   * @param {{ transport?: Transport, log?: (line: string) => void, requestTimeoutSeconds?: number }} options
   */
  constructor({ transport = fetchTransport(), log = (line) => { process.stderr.write(line + '\n'); }, requestTimeoutSeconds } = {}) {
    this.transport = transport;
    this.requestTimeoutSeconds = requestTimeoutSeconds;
    this.log = log;
    this.scheduler = new Scheduler();
    this.timeKnown = false;
    /** @type {Map<string, Device>} */
    this.devices = new Map();
  }

  // One request line → one answer object. Never throws.
  /**
   * @param {string} line
   * @returns {Promise<Record<string, unknown>>}
   */
  async handleLine(line) {
    /** @type {unknown} */
    let request;
    try {
      request = JSON.parse(line);
    } catch (e) {
      return { id: null, ok: false, error: `the line is not JSON: ${/** @type {Error} */ (e).message}` };
    }
    if (request === null || typeof request !== 'object' || Array.isArray(request)) {
      return { id: null, ok: false, error: `a request must be a JSON object, not ${request === null ? 'null' : Array.isArray(request) ? 'an array' : typeof request}` };
    }
    if (!Object.hasOwn(request, 'id')) return { id: null, ok: false, error: 'missing field id', pointer: '/id' };
    const object = /** @type {Record<string, unknown>} */ (request);
    const id = object.id;
    try {
      const fields = await this.run(new Fields(object));
      return { id, ok: true, ...fields };
    } catch (caught) {
      const e = /** @type {any} */ (caught);
      if (!(e instanceof CommandError)) this.log(`adapter: internal error: ${e?.stack ?? e}`);
      /** @type {Record<string, unknown>} */
      const answer = { id, ok: false, error: e instanceof CommandError ? e.message : `internal error: ${e?.message ?? e}` };
      if (e instanceof CommandError && e.pointer) answer.pointer = e.pointer;
      return answer;
    } finally {
      await this.settle();
    }
  }

  // Every device's requests answered, and those their answers started.
  async settle() {
    for (;;) {
      const busy = [...this.devices.values()].filter((d) => d.sdk.busy);
      if (!busy.length) return;
      await Promise.all(busy.map((d) => d.sdk.idle()));
    }
  }

  /** @param {Fields} f */
  device(f) {
    const id = f.string('device');
    const device = this.devices.get(id);
    if (!device) throw new CommandError(`unknown device ${id}${hint(id, [...this.devices.keys()]).replace(/ \(expected one of.*$/, '')}`, '/device');
    return device;
  }

  /**
   * @param {Fields} f the request
   * @returns {Promise<Record<string, unknown>>} the answer's fields besides `id` and `ok`
   */
  async run(f) {
    const cmd = f.string('cmd');
    if (!Object.hasOwn(COMMAND_FIELDS, cmd)) throw new CommandError(`unknown command ${cmd}${hint(cmd, Object.keys(COMMAND_FIELDS))}`, '/cmd');
    f.checkKeys(['id', 'cmd', ...COMMAND_FIELDS[cmd]], `a \`${cmd}\` request`);
    switch (cmd) {
      case 'hello': {
        const runner = f.has('protocol') ? f.int('protocol', 1, Number.MAX_SAFE_INTEGER) : null;
        if (runner !== null && !PROTOCOLS.includes(runner)) {
          throw new CommandError(`the adapter ${ADAPTER_NAME} ${SDK_VERSION} speaks adapter protocol ${PROTOCOLS.join(', ')}; the runner speaks ${runner}`, '/protocol');
        }
        return {
          name: ADAPTER_NAME, version: SDK_VERSION, protocols: PROTOCOLS, capabilities: CAPABILITIES,
          ...(this.requestTimeoutSeconds ? { request_timeout_seconds: this.requestTimeoutSeconds } : {}),
        };
      }
      case 'create':
        await this.create(f);
        return {};
      case 'push':
        this.device(f);
        throw new CommandError('web pages receive no silent push: this adapter emulates only the web and does not list `push` in its capabilities', '/cmd');
      case 'launch':
        this.device(f).launch();
        return {};
      case 'terminate':
        this.device(f).terminate();
        return {};
      case 'foreground': case 'background': case 'refresh': case 'later': case 'skip': {
        const d = this.device(f);
        // A terminated app does nothing; that is not a malformed request.
        if (!d.running) return {};
        if (cmd === 'refresh') await d.sdk.refresh();
        else d.sdk[cmd]();
        return {};
      }
      case 'network': {
        const d = this.device(f);
        d.setOnline(f.bool('online'));
        return {};
      }
      case 'install': {
        const d = this.device(f);
        if (!Object.hasOwn(f.object, 'app_version')) throw f.missing('app_version', ' (null for an app without a version)');
        d.install(f.optionalString('app_version'), f.optionalString('build'));
        return {};
      }
      case 'track': {
        const d = this.device(f);
        const module = /** @type {Module} */ (f.string('module'));
        if (!MODULES.includes(module)) throw new CommandError(`unknown module '${module}'${hint(module, MODULES)}`, '/module');
        const count = f.int('count', 0, 100_000);
        const items = Array.from({ length: count }, (_, n) => ({ device: d.id, module, n }));
        d.sdk.track(module, items);
        return {};
      }
      case 'set_clock': {
        const d = this.device(f);
        // The user sets the device clock: true time and the device's timers do not move.
        d.offsetMs = Math.round(f.seconds('clock_offset_seconds') * 1000);
        return {};
      }
      case 'advance':
        await this.advance(f.time('to'), '/to');
        return {};
      case 'next_deadline': {
        const t = this.scheduler.next();
        return { next_deadline: t ? formatTime(t.at) : null };
      }
      case 'state':
        return this.device(f).stateFields();
      default:
        throw new CommandError(`unknown command ${cmd}`, '/cmd');
    }
  }

  /** @param {Fields} f */
  async create(f) {
    const id = f.string('device');
    const replace = f.bool('replace', false);
    const now = f.has('now') ? f.time('now') : null;
    const c = f.sub('config');
    c.checkKeys(CONFIG_FIELDS, "`create`'s config");
    if (this.devices.has(id) && !replace) {
      throw new CommandError(`device ${id} exists; send "replace": true to replace it (its process ends, its counters restart)`, '/device');
    }
    const baseUrl = c.string('base_url');
    const project = c.string('project');
    const platform = c.string('platform');
    const flavor = c.optionalString('flavor') ?? 'native';
    const appVersion = c.optionalString('app_version');
    const build = c.optionalString('build');
    const sdk = c.nullableString('sdk');
    const sdkVersion = c.nullableString('sdk_version');
    const storage = c.optionalString('storage');
    const pushToken = c.optionalString('push_token');
    const enabled = c.bool('enabled', true);
    const offsetSeconds = c.seconds('clock_offset_seconds', 0);
    if (!PLATFORMS.includes(platform)) throw new CommandError(`unknown platform '${platform}'${hint(platform, PLATFORMS)}`, c.pointer('platform'));
    if (platform !== 'web') throw new CommandError(`this adapter emulates the web SDK only, not ${platform} (capabilities: platform:web)`, c.pointer('platform'));
    if (!FLAVORS.includes(flavor)) throw new CommandError(`unknown flavor '${flavor}'${hint(flavor, FLAVORS)}`, c.pointer('flavor'));
    if (flavor !== 'native') throw new CommandError(`this adapter emulates the native web SDK only, not ${flavor}`, c.pointer('flavor'));
    if (pushToken !== null) throw new CommandError('web pages have no Lerix push token (leave push_token out or null)', c.pointer('push_token'));
    let url;
    try {
      url = new URL(baseUrl);
    } catch {
      url = null;
    }
    if (!url || !/^https?:$/.test(url.protocol)) {
      throw new CommandError(`base_url must be an absolute URL such as http://127.0.0.1:8080, not ${baseUrl}`, c.pointer('base_url'));
    }
    // True time: the first create sets it; a later one may move it on (never back).
    if (now !== null) {
      if (!this.timeKnown) {
        this.scheduler.now = now;
        this.timeKnown = true;
      } else if (now > this.scheduler.now) {
        await this.advance(now, '/now');
      } else if (now < this.scheduler.now) {
        this.log(`adapter: create ${id} at ${formatTime(now)}, before true time ${formatTime(this.scheduler.now)}; using true time`);
      }
    } else if (!this.timeKnown) {
      throw new CommandError('missing field now (the first create sets true time)', '/now');
    }
    let disk;
    try {
      disk = storage === null ? new MemoryStorage() : new FileStorage(storage);
    } catch (e) {
      throw new CommandError(`cannot use the storage folder: ${/** @type {Error} */ (e).message}`, c.pointer('storage'));
    }
    const config = {
      base_url: baseUrl, project, platform, app_version: appVersion, build, enabled,
      // Absent: this SDK's own name and version; null: none sent.
      sdk: sdk === undefined ? 'js' : sdk,
      sdk_version: sdkVersion === undefined ? SDK_VERSION : sdkVersion,
    };
    const old = this.devices.get(id);
    if (old) old.terminate();
    this.devices.delete(id);
    this.devices.set(id, new Device(this, id, config, Math.round(offsetSeconds * 1000), disk));
  }

  // True time moves to `to`, firing due timers in order; the requests a firing started are
  // answered before the next instant's timers fire.
  /**
   * @param {number} to
   * @param {string} pointer the field that named `to`, for the error
   */
  async advance(to, pointer) {
    if (to < this.scheduler.now) {
      throw new CommandError(`time cannot go backwards: ${formatTime(to)} is before ${formatTime(this.scheduler.now)}`, pointer);
    }
    this.timeKnown = true;
    while (this.scheduler.fireNext(to)) await this.settle();
    this.scheduler.now = to;
  }
}

// Reads lines one at a time: each answer is written before the next line is read.
// `--request-timeout S`: real seconds the transport waits for an answer (default 30).
async function main() {
  const at = process.argv.indexOf('--request-timeout');
  const seconds = at > 0 ? Number(process.argv[at + 1]) : 30;
  if (!(seconds > 0)) {
    process.stderr.write(`adapter: --request-timeout takes seconds above 0, not ${process.argv[at + 1]}\n`);
    process.exit(2);
  }
  const host = new AdapterHost({ transport: fetchTransport({ timeoutMs: seconds * 1000 }), requestTimeoutSeconds: seconds });
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  for await (const line of rl) {
    if (!line.trim()) continue;
    const answer = await host.handleLine(line);
    process.stdout.write(JSON.stringify(answer) + '\n');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // End of stdin ends the adapter, even with keep-alive sockets still open (once stdout drained).
  main().then(() => process.stdout.write('', () => process.exit(0)), (e) => {
    process.stderr.write(`adapter: ${e?.stack ?? e}\n`);
    process.exit(1);
  });
}
