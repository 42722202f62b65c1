/** Most nested containers in a canonicalised value (as deep as any JSON body the gateway accepts, docs/fleet.md). */
export const MAX_CANONICAL_DEPTH = 64;

/** Thrown for a value with no canonical form here: a lone surrogate, or nesting past MAX_CANONICAL_DEPTH. */
export class NotCanonicalizable extends TypeError {}

/**
 * RFC 8785 canonical JSON of a value that came out of JSON.parse (plain objects, arrays, strings, finite numbers,
 * booleans, null: no toJSON, no undefined, no cycles). For such values JCS is JSON.stringify's own serialisation of
 * strings and numbers with object keys sorted by UTF-16 code units (Array#sort's default order). The control plane's
 * ingest spends much of its CPU here (bench:fleet-ingest), so the common case takes a fast path: one walk checks that
 * every object's keys are already in that order and every string is well formed, and then the native
 * JSON.stringify is exactly JCS. Otherwise it builds the text with sorted keys. Its output is tested equal to the
 * ledger's canonicalJson over a varied corpus, and like it, it refuses a lone surrogate (no ledger entry can hold one).
 */
export function parsedCanonicalJson(value: unknown): string {
  return isInCanonicalOrder(value, 0) ? JSON.stringify(value) : sortedJson(value, 0);
}

// String.prototype.isWellFormed is in Node 22 but not in the ES2022 library this project compiles against.
type WellFormedCheck = string & { isWellFormed(): boolean };

function wellFormed(s: string): string {
  if (!(s as WellFormedCheck).isWellFormed()) throw new NotCanonicalizable('Lone surrogate is not allowed');
  return s;
}

function tooDeep(depth: number): void {
  if (depth >= MAX_CANONICAL_DEPTH) throw new NotCanonicalizable(`JSON nesting deeper than ${MAX_CANONICAL_DEPTH}`);
}

/** Whether JSON.stringify(value) is already canonical: keys in code-unit order everywhere (strings checked too). */
function isInCanonicalOrder(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return wellFormed(value) !== undefined;
  if (value === null || typeof value !== 'object') return true;
  tooDeep(depth);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isInCanonicalOrder(value[i], depth + 1)) return false;
    return true;
  }
  const obj = value as Record<string, unknown>;
  let prev: string | null = null;
  for (const k in obj) {
    if (prev !== null && !(prev < k)) return false;
    wellFormed(k);
    if (!isInCanonicalOrder(obj[k], depth + 1)) return false;
    prev = k;
  }
  return true;
}

function sortedJson(value: unknown, depth: number): string {
  if (typeof value === 'string') return JSON.stringify(wellFormed(value));
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  tooDeep(depth);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += sortedJson(value[i], depth + 1);
    }
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (i > 0) out += ',';
    out += `${JSON.stringify(wellFormed(k))}:${sortedJson(obj[k], depth + 1)}`;
  }
  return `${out}}`;
}
