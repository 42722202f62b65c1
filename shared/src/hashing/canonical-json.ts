import canonicalizeModule from 'canonicalize';
import { hash } from 'node:crypto';

// `canonicalize` is the RFC 8785 (JCS) reference implementation by the RFC's co-author.
const canonicalizeFn = canonicalizeModule as unknown as (value: unknown) => string | undefined;

/**
 * RFC 8785 canonical JSON text of a value. Throws on values JSON cannot carry (undefined at the top, NaN, Infinity).
 *
 * JCS is JSON.stringify's own serialisation of strings and finite numbers with every object's keys in UTF-16
 * code-unit order. So when one walk finds a value made only of plain objects whose keys already enumerate in that
 * order, arrays, well-formed strings, finite numbers, booleans and null, the native JSON.stringify is its canonical
 * text; anything else (unsorted keys, toJSON, class instances, undefined members, deep nesting) goes to the reference
 * implementation. The ledger canonicalises every entry on the request path, and the gateway builds its entries with
 * sorted keys, so this took JCS from ~6% of a decision's CPU to the walk and one native stringify (docs/ledger.md).
 */
export function canonicalJson(value: unknown): string {
  if (inNativeCanonicalForm(value, 0)) return JSON.stringify(value);
  const text = canonicalizeFn(value);
  if (text === undefined) throw new TypeError('value has no canonical JSON form');
  return text;
}

/** Past this depth the walk stops and the reference implementation (iterative, cycle-checking) takes over. */
const FAST_DEPTH = 32;

// String.prototype.isWellFormed is in Node 22 but not in the ES2022 library this project compiles against.
type WellFormedCheck = string & { isWellFormed(): boolean };

/** Whether JSON.stringify(value) is exactly its RFC 8785 text (see canonicalJson). */
export function inNativeCanonicalForm(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
      return (value as WellFormedCheck).isWellFormed();
    case 'number':
      return Number.isFinite(value);
    case 'boolean':
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= FAST_DEPTH) return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (let i = 0; i < value.length; i++) if (!inNativeCanonicalForm(value[i], depth + 1)) return false;
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const obj = value as Record<string, unknown>;
  if (typeof obj['toJSON'] === 'function') return false;
  let prev: string | null = null;
  for (const k in obj) {
    if (prev !== null && !(prev < k)) return false;
    if (!(k as WellFormedCheck).isWellFormed() || !inNativeCanonicalForm(obj[k], depth + 1)) return false;
    prev = k;
  }
  return true;
}

export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}
