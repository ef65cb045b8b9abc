// Request checking for the adapter protocol (docs/ADAPTER.md): closed requests, typed fields,
// errors that name the field by its JSON pointer, and "did you mean" suggestions.

import { parseTime } from './answer.js';

/** A refused request: its message names the field, `pointer` is its JSON pointer. */
export class CommandError extends Error {
  /**
   * @param {string} message
   * @param {string | null} [pointer]
   */
  constructor(message, pointer = null) {
    super(pointer ? `${pointer}: ${message}` : message);
    this.pointer = pointer;
  }
}

// Edit distance where a swap of two neighbours is one edit (optimal string alignment).
/**
 * @param {string} a
 * @param {string} b
 * @returns {number}
 */
export function editDistance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

// The nearest candidate when it is close enough to be a typo: at most a third of the word's
// length away (at least 2) and less than its length, so `ab` never suggests an unrelated `cd`.
/**
 * @param {unknown} word
 * @param {Iterable<string>} candidates
 * @returns {string | null}
 */
export function nearest(word, candidates) {
  const typed = String(word).toLowerCase();
  if (typed.length > 200) return null; // a hostile megabyte key costs nothing
  const limit = Math.min(Math.max(2, Math.floor(typed.length / 3)), typed.length - 1);
  let best = null;
  for (const c of [...candidates].sort()) {
    const dist = editDistance(typed, c.toLowerCase());
    if (dist <= limit && (best === null || dist < best.dist)) best = { c, dist };
  }
  return best?.c ?? null;
}

/**
 * " (did you mean 'x'?)", or the short list of candidates, or nothing.
 * @param {unknown} word
 * @param {readonly string[]} candidates
 */
export function hint(word, candidates) {
  const near = nearest(word, candidates);
  if (near) return ` (did you mean '${near}'?)`;
  if (candidates.length && candidates.length <= 12) return ` (expected one of: ${[...new Set(candidates)].sort().join(', ')})`;
  return '';
}

/** @type {(key: string) => string} */
const escapePointer = (key) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** @param {unknown} v */
function typeName(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return 'number';
  return typeof v; // string, boolean, object
}

// Typed access to one object of a request; `base` is its pointer ("" or "/config").
export class Fields {
  /**
   * @param {Record<string, unknown>} object
   * @param {string} [base]
   */
  constructor(object, base = '') {
    this.object = object;
    this.base = base;
  }

  /** @param {string} name */
  pointer(name) {
    return `${this.base}/${escapePointer(name)}`;
  }

  /** @param {string} name */
  has(name) {
    return Object.hasOwn(this.object, name) && this.object[name] !== null;
  }

  // A key the command does not take is refused, never ignored: a misspelt `plattform` would
  // otherwise silently give a device on the default platform.
  /**
   * @param {readonly string[]} allowed
   * @param {string} what
   */
  checkKeys(allowed, what) {
    for (const key of Object.keys(this.object)) {
      if (!allowed.includes(key)) {
        throw new CommandError(`unknown field '${key}' in ${what}${hint(key, allowed.filter((k) => k !== 'id' && k !== 'cmd'))}`, this.pointer(key));
      }
    }
  }

  /**
   * @param {string} name
   * @param {string} [extra]
   */
  missing(name, extra = '') {
    return new CommandError(`missing field ${name}${extra}`, this.pointer(name));
  }

  /**
   * @param {string} name
   * @param {string} want
   */
  wrongType(name, want) {
    return new CommandError(`${name} must be ${want}, not ${typeName(this.object[name])}`, this.pointer(name));
  }

  /**
   * @param {string} name
   * @returns {string}
   */
  string(name) {
    if (!Object.hasOwn(this.object, name)) throw this.missing(name);
    const v = this.object[name];
    if (typeof v !== 'string') throw this.wrongType(name, 'a string');
    return v;
  }

  // Absent or null → null, else a string.
  /**
   * @param {string} name
   * @returns {string | null}
   */
  optionalString(name) {
    return this.nullableString(name) ?? null;
  }

  // Absent → undefined, null → null, else a string: for a field whose absence says something
  // else than null (`sdk` left out is this SDK's name, `sdk: null` sends none).
  /**
   * @param {string} name
   * @returns {string | null | undefined}
   */
  nullableString(name) {
    if (!Object.hasOwn(this.object, name)) return undefined;
    const v = this.object[name];
    if (v === null) return null;
    if (typeof v !== 'string') throw this.wrongType(name, 'a string or null');
    return v;
  }

  /**
   * @param {string} name
   * @param {boolean} [fallback] what an absent or null field reads as; without one it is refused
   * @returns {boolean}
   */
  bool(name, fallback) {
    if (!this.has(name)) {
      if (fallback !== undefined) return fallback;
      throw this.missing(name);
    }
    const v = this.object[name];
    if (typeof v !== 'boolean') throw this.wrongType(name, 'true or false');
    return v;
  }

  /**
   * @param {string} name
   * @param {number} min
   * @param {number} max
   * @returns {number}
   */
  int(name, min, max) {
    if (!Object.hasOwn(this.object, name)) throw this.missing(name);
    const v = this.object[name];
    if (typeof v !== 'number' || !Number.isInteger(v)) throw this.wrongType(name, 'a whole number');
    if (v < min || v > max) throw new CommandError(`${name} must be between ${min} and ${max}`, this.pointer(name));
    return v;
  }

  /**
   * @param {string} name
   * @param {number} [fallback]
   * @returns {number}
   */
  seconds(name, fallback) {
    if (!this.has(name)) {
      if (fallback !== undefined) return fallback;
      throw this.missing(name);
    }
    const v = this.object[name];
    if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) >= 1e12) throw this.wrongType(name, 'a number of seconds');
    return v;
  }

  /**
   * An RFC 3339 time, as milliseconds since the epoch.
   * @param {string} name
   */
  time(name) {
    const text = this.string(name);
    const ms = parseTime(text);
    if (ms === null) throw new CommandError(`${name} must be an RFC 3339 time like 2026-12-02T11:00:00.000Z, not ${text}`, this.pointer(name));
    return ms;
  }

  /**
   * The object in field `name`, its own fields pointed to below this one's pointer.
   * @param {string} name
   */
  sub(name) {
    if (!Object.hasOwn(this.object, name)) throw this.missing(name);
    const v = this.object[name];
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw this.wrongType(name, 'an object');
    return new Fields(/** @type {Record<string, unknown>} */ (v), this.pointer(name));
  }
}
