// Reading release control answers (CONTRACT.md "The check") part by part, and the small
// value helpers the SDK and its saved file share. No I/O, no clock.

/** @typedef {'errors' | 'analytics' | 'tracing' | 'feedback' | 'surveys'} Module */
/** @typedef {Module | 'push_token_registration'} PausableModule */

/**
 * The update that blocks the app.
 * @typedef {object} RequiredUpdate
 * @property {string} rule
 * @property {string | null} below
 * @property {string | null} store_url
 * @property {string | null} message
 */

/**
 * The update the app may offer; a `recommended` one may turn required at `becomes_required_on`.
 * @typedef {object} OptionalUpdate
 * @property {string} rule
 * @property {'optional' | 'recommended'} kind
 * @property {string | null} below
 * @property {string | null} store_url
 * @property {string | null} message
 * @property {string | null} becomes_required_on RFC 3339
 */

/**
 * @typedef {object} MaintenanceWindow
 * @property {string} rule
 * @property {string} starts_at RFC 3339
 * @property {string} ends_at RFC 3339, at most 7 days after the start
 * @property {string | null} message
 */

/**
 * @typedef {object} SDKSwitch
 * @property {string} rule
 * @property {PausableModule[]} modules
 * @property {string} ends_at RFC 3339
 */

/**
 * The usable parts of a 200 answer: a part is absent when unusable (the SDK keeps its saved one).
 * @typedef {object} AnswerParts
 * @property {number} [serverTime] ms since the epoch
 * @property {number} [lifetime] seconds
 * @property {RequiredUpdate | null} [required]
 * @property {OptionalUpdate | null} [optional]
 * @property {MaintenanceWindow[]} [maintenance]
 * @property {SDKSwitch[]} [switches]
 * @property {boolean} complete whether every part was usable
 */

/**
 * The modules whose items go to the ingest endpoint.
 * @type {readonly Module[]}
 */
export const MODULES = ['errors', 'analytics', 'tracing', 'feedback', 'surveys'];
/**
 * Order in which paused modules are listed: the ingest modules, then push token registration.
 * @type {readonly PausableModule[]}
 */
export const PAUSABLE_MODULES = [...MODULES, 'push_token_registration'];
export const MAX_WINDOW_MS = 7 * 86_400_000;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

// Milliseconds since the epoch for an RFC 3339 time, or null. Date.parse alone accepts too much
// ("2026-12-02", "Tue, 01 Dec"), so the shape is checked first.
/**
 * @param {unknown} text
 * @returns {number | null}
 */
export function parseTime(text) {
  if (typeof text !== 'string') return null;
  const m = RFC3339.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return null;
  const ms = Date.parse(text.trim().replace(/^(.{19})\.(\d{3})\d*/, '$1.$2'));
  return Number.isFinite(ms) ? ms : null;
}

/**
 * The instant of a time the SDK keeps: every window, switch and deadline it saves was read by
 * parseTime and written back by formatTime, so it always parses.
 * @param {string} text
 * @returns {number}
 */
export function timeOf(text) {
  return /** @type {number} */ (parseTime(text));
}

// RFC 3339 UTC with milliseconds, as the contract writes every time.
/** @param {number} ms */
export function formatTime(ms) {
  return new Date(ms).toISOString();
}

/** @type {(v: unknown) => string | null} */
const str = (v) => (typeof v === 'string' ? v : null);

// `required_update` object → update; any object blocks (fail safe), bad fields read as absent.
/**
 * @param {unknown} v
 * @returns {RequiredUpdate | undefined}
 */
export function readRequired(v) {
  if (!isObject(v)) return undefined;
  return { rule: str(v.rule) ?? '', below: str(v.below), store_url: str(v.store_url), message: str(v.message) };
}

// `optional_update` object; an unknown kind reads as optional, a bad deadline as none.
/**
 * @param {unknown} v
 * @returns {OptionalUpdate | undefined}
 */
export function readOptional(v) {
  if (!isObject(v)) return undefined;
  const deadline = parseTime(v.becomes_required_on);
  return {
    rule: str(v.rule) ?? '',
    kind: v.kind === 'recommended' ? 'recommended' : 'optional',
    below: str(v.below),
    store_url: str(v.store_url),
    message: str(v.message),
    becomes_required_on: deadline === null ? null : formatTime(deadline),
  };
}

// One maintenance window; dropped without valid start and end. The client never honours more
// than 7 days after the start (the spec: maintenance always ends).
/**
 * @param {unknown} v
 * @returns {MaintenanceWindow | null}
 */
export function readWindow(v) {
  if (!isObject(v)) return null;
  const start = parseTime(v.starts_at);
  const end = parseTime(v.ends_at);
  if (start === null || end === null) return null;
  const capped = Math.min(end, start + MAX_WINDOW_MS);
  return { rule: str(v.rule) ?? '', starts_at: formatTime(start), ends_at: formatTime(capped), message: str(v.message) };
}

// One SDK switch; dropped without a modules list or a valid end. `all` expands, unknown names go.
/**
 * @param {unknown} v
 * @returns {SDKSwitch | null}
 */
export function readSwitch(v) {
  if (!isObject(v) || !Array.isArray(v.modules)) return null;
  const end = parseTime(v.ends_at);
  if (end === null) return null;
  const modules = new Set();
  for (const name of v.modules) {
    if (name === 'all') PAUSABLE_MODULES.forEach((m) => modules.add(m));
    else if (PAUSABLE_MODULES.includes(name)) modules.add(name);
  }
  return { rule: str(v.rule) ?? '', modules: PAUSABLE_MODULES.filter((m) => modules.has(m)), ends_at: formatTime(end) };
}

/**
 * Whether `v` is not null: a type guard for `filter`, which drops what a reader refused.
 * @template T
 * @param {T | null} v
 * @returns {v is T}
 */
export function isPresent(v) {
  return v !== null;
}

/**
 * Whether `v` is a JSON object (not null, not an array).
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
export function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// A 200 body → its parts. Each part is `undefined` when unusable (absent or wrong type): the
// SDK then keeps its saved value of that part. Throws only when the body is no JSON object.
/**
 * @param {string} bodyText
 * @returns {AnswerParts}
 */
export function parseAnswer(bodyText) {
  /** @type {unknown} */
  let json;
  try {
    json = JSON.parse(bodyText);
  } catch (e) {
    throw new Error(`the answer is not JSON: ${/** @type {Error} */ (e).message}`);
  }
  if (!isObject(json)) throw new Error(`the answer is a JSON ${json === null ? 'null' : Array.isArray(json) ? 'array' : typeof json}, not an object`);
  /** @type {AnswerParts} */
  const parts = { complete: false };
  const t = parseTime(json.server_time);
  if (t !== null) parts.serverTime = t;
  const lifetime = json.lifetime;
  if (typeof lifetime === 'number' && Number.isInteger(lifetime) && lifetime > 0) parts.lifetime = lifetime;
  if (json.required_update === null) parts.required = null;
  else if (readRequired(json.required_update)) parts.required = readRequired(json.required_update);
  if (json.optional_update === null) parts.optional = null;
  else if (readOptional(json.optional_update)) parts.optional = readOptional(json.optional_update);
  if (Array.isArray(json.maintenance)) parts.maintenance = json.maintenance.map(readWindow).filter(isPresent);
  if (Array.isArray(json.sdk_switch)) parts.switches = json.sdk_switch.map(readSwitch).filter(isPresent);
  parts.complete = ['serverTime', 'lifetime', 'required', 'optional', 'maintenance', 'switches'].every((k) => k in parts);
  return parts;
}

// `max-age` of a Cache-Control value, when a positive whole number.
/**
 * @param {unknown} cacheControl
 * @returns {number | null}
 */
export function maxAge(cacheControl) {
  if (typeof cacheControl !== 'string') return null;
  const m = /(?:^|[,\s])max-age\s*=\s*"?(\d{1,10})"?/i.exec(cacheControl);
  if (!m) return null;
  const n = Number(m[1]);
  return n > 0 ? n : null;
}

// "the server answered 503: Service Unavailable: …" from a problem+json body when it has one.
/**
 * @param {number} status
 * @param {string} bodyText
 */
export function statusReason(status, bodyText) {
  let reason = `the server answered ${status}`;
  try {
    const p = JSON.parse(bodyText);
    const words = isObject(p) ? [p.title, p.detail].filter((w) => typeof w === 'string') : [];
    if (words.length) reason += ': ' + words.join(': ');
  } catch {
    // not a problem body: the status says enough
  }
  return reason;
}
