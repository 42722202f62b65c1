import canonicalizeModule from 'canonicalize';
import { hash } from 'node:crypto';

// `canonicalize` is the RFC 8785 (JCS) reference implementation by the RFC's co-author.
const canonicalizeFn = canonicalizeModule as unknown as (value: unknown) => string | undefined;

/**
 * RFC 8785 canonical JSON text of a value. Throws on values JSON cannot carry (undefined at the top, NaN, Infinity).
 *
 * JCS is JSON.stringify's own serialisation of strings and finite numbers with every object's keys in UTF-16
 * code-unit order. One walk classifies the value. Made only of plain objects, arrays, well-formed strings, finite
 * numbers, booleans and null, with every object's keys already enumerating in that order, the native
 * JSON.stringify is its canonical text (the gateway builds its own entries with sorted keys). Made of the same with
 * some keys out of order (a caller's payload, as JSON.parse read it), a recursive writer sorts the keys and leaves
 * strings and numbers to JSON.stringify: ~4x faster than the reference implementation, which keeps the rest
 * (toJSON, class instances, undefined members, deep nesting) and whose output both are tested equal to
 * (canonical-json.test.ts). The ledger canonicalises every entry on the request path (docs/ledger.md).
 */
export function canonicalJson(value: unknown): string {
  const form = jsonForm(value, 0);
  if (form === NATIVE) return JSON.stringify(value);
  if (form === UNSORTED) return JSON.stringify(sortedCopy(value));
  const text = canonicalizeFn(value);
  if (text === undefined) throw new TypeError('value has no canonical JSON form');
  return text;
}

/** Past this depth the walk stops and the reference implementation (iterative, cycle-checking) takes over. */
const FAST_DEPTH = 32;

/** JSON.stringify writes the canonical text. */
const NATIVE = 0;
/** Plain JSON data, some object's keys out of order (none of them an integer): JSON.stringify of sortedCopy. */
const UNSORTED = 1;
/** Anything else: the reference implementation. */
const OTHER = 2;
type JsonForm = typeof NATIVE | typeof UNSORTED | typeof OTHER;

// String.prototype.isWellFormed is in Node 22 but not in the ES2022 library this project compiles against.
type WellFormedCheck = string & { isWellFormed(): boolean };

/** Whether JSON.stringify(value) is exactly its RFC 8785 text (see canonicalJson). */
export function inNativeCanonicalForm(value: unknown, depth: number): boolean {
  return jsonForm(value, depth) === NATIVE;
}

function jsonForm(value: unknown, depth: number): JsonForm {
  switch (typeof value) {
    case 'string':
      return (value as WellFormedCheck).isWellFormed() ? NATIVE : OTHER;
    case 'number':
      return Number.isFinite(value) ? NATIVE : OTHER;
    case 'boolean':
      return NATIVE;
    case 'object':
      break;
    default:
      return OTHER;
  }
  if (value === null) return NATIVE;
  if (depth >= FAST_DEPTH) return OTHER;
  let form: JsonForm = NATIVE;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return OTHER;
    for (let i = 0; i < value.length; i++) {
      const f = jsonForm(value[i], depth + 1);
      if (f === OTHER) return OTHER;
      if (f === UNSORTED) form = UNSORTED;
    }
    return form;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return OTHER;
  const obj = value as Record<string, unknown>;
  if (typeof obj['toJSON'] === 'function') return OTHER;
  let prev: string | null = null;
  let unsorted = false;
  let digitKey = false;
  for (const k in obj) {
    if (!(k as WellFormedCheck).isWellFormed()) return OTHER;
    if (prev !== null && !(prev < k)) unsorted = true;
    const c = k.charCodeAt(0);
    if (c >= 48 && c <= 57) digitKey = true;
    const f = jsonForm(obj[k], depth + 1);
    if (f === OTHER) return OTHER;
    if (f === UNSORTED) form = UNSORTED;
    prev = k;
  }
  if (!unsorted) return form;
  // An object enumerates integer keys first whatever order they were set in, so no copy can hold them sorted.
  return digitKey ? OTHER : UNSORTED;
}

/**
 * Plain JSON data (jsonForm said UNSORTED) with every object's keys set in code-unit order, so that JSON.stringify
 * writes its canonical text: objects already in order (members included) are kept as they are, the others copied.
 */
function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const sorted = sortedCopy(item);
      if (sorted !== item) (copy ??= value.slice())[i] = sorted;
    }
    return copy ?? value;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  let changed = false;
  for (let i = 1; i < keys.length && !changed; i++) changed = !(keys[i - 1]! < keys[i]!);
  if (changed) keys.sort(); // code-unit order, Array#sort's default
  const members = new Array<unknown>(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const item = obj[keys[i]!];
    members[i] = sortedCopy(item);
    if (members[i] !== item) changed = true;
  }
  if (!changed) return obj;
  // An ordinary object, which V8 keeps in its fast mode: JSON.stringify writes it in about half the time it takes for
  // an object without a prototype (a dictionary from the start), ~2.2 against ~4.1 µs for an event's entry. A
  // "__proto__" key (JSON.parse makes it an own property) is defined, not assigned: assigning it would call the
  // prototype setter and drop the member from the text.
  const out: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (k === '__proto__') Object.defineProperty(out, k, { value: members[i], enumerable: true, writable: true, configurable: true });
    else out[k] = members[i];
  }
  return out;
}

export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}
