import canonicalizeModule from 'canonicalize';
import { hash } from 'node:crypto';

// `canonicalize` is the RFC 8785 (JCS) reference implementation by the RFC's co-author.
const canonicalizeFn = canonicalizeModule as unknown as (value: unknown) => string | undefined;

/** RFC 8785 canonical JSON text of a value. Throws on values JSON cannot carry (undefined at the top, NaN, Infinity). */
export function canonicalJson(value: unknown): string {
  const text = canonicalizeFn(value);
  if (text === undefined) throw new TypeError('value has no canonical JSON form');
  return text;
}

export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}
