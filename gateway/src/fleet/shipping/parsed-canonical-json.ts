/**
 * RFC 8785 canonical JSON of a value that came out of JSON.parse (plain objects, arrays, strings, finite numbers,
 * booleans, null: no toJSON, no undefined, no cycles). For such values JCS is JSON.stringify's own serialisation of
 * strings and numbers with object keys sorted by UTF-16 code units (Array#sort's default order), which is what this
 * builds, in one pass and without the general canonicalizer's checks: the control plane's ingest spends most of its
 * CPU here (bench:fleet-ingest). Its output is tested equal to the ledger's canonicalJson over a varied corpus, and
 * like it, it refuses a lone surrogate (no ledger entry can hold one).
 */
export function parsedCanonicalJson(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += parsedCanonicalJson(value[i]);
    }
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (i > 0) out += ',';
    out += `${quote(k)}:${parsedCanonicalJson(obj[k])}`;
  }
  return `${out}}`;
}

// String.prototype.isWellFormed is in Node 22 but not in the ES2022 library this project compiles against.
type WellFormedCheck = string & { isWellFormed(): boolean };

function quote(s: string): string {
  if (!(s as WellFormedCheck).isWellFormed()) throw new TypeError('Lone surrogate is not allowed');
  return JSON.stringify(s);
}
