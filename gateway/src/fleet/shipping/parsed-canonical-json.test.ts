import { describe, expect, it } from 'vitest';
import { canonicalJson } from '@aduana/shared';
import { MAX_CANONICAL_DEPTH, parsedCanonicalJson } from './parsed-canonical-json.js';

// The fast path must be byte-identical to the ledger's canonicalizer on anything JSON.parse can produce, or a
// valid shipped entry would be refused (or a forged one accepted).
const corpus: unknown[] = [
  null,
  true,
  0,
  -0,
  1e21,
  1e-7,
  0.1,
  123456789012345680000,
  -1.5e-300,
  Number.MAX_SAFE_INTEGER,
  'plain',
  'olá ✓ 𝄞 "quoted" \\ / \n\t\u0000\u001f\u007f\u2028',
  '\ud800 lone surrogate',
  { ['\udc00']: 1 },
  [],
  {},
  [1, [2, [3, { b: 1, a: 2 }]]],
  { b: 1, a: 2, A: 3, _: 4, '': 5, é: 6, e: 7, '10': 8, '9': 9, '\u20ac': 10, '\ud83d\ude00': 11, '\ufb33': 12 },
  { nested: { z: [{ y: null, x: false }], a: { c: 'd', b: 'e' } }, n: -0.000001, big: 1.7976931348623157e308 },
];

function randomValue(depth: number, rnd: () => number): unknown {
  const r = rnd();
  if (depth > 3 || r < 0.3) {
    const p = rnd();
    if (p < 0.25) return (rnd() - 0.5) * 10 ** Math.floor(rnd() * 40 - 20);
    if (p < 0.5) return String.fromCharCode(...Array.from({ length: Math.floor(rnd() * 8) }, () => Math.floor(rnd() * 0xffff)));
    if (p < 0.75) return rnd() < 0.5;
    return null;
  }
  if (r < 0.6) return Array.from({ length: Math.floor(rnd() * 4) }, () => randomValue(depth + 1, rnd));
  const obj: Record<string, unknown> = {};
  for (let i = 0; i < Math.floor(rnd() * 5); i++) obj[String.fromCharCode(...Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => Math.floor(rnd() * 0x3000)))] = randomValue(depth + 1, rnd);
  return obj;
}

/** Same text, or both refuse (a lone surrogate). */
function sameAsLedger(parsed: unknown): boolean {
  let expected: string | Error;
  try {
    expected = canonicalJson(parsed);
  } catch (err) {
    expected = err as Error;
  }
  if (typeof expected === 'string') return parsedCanonicalJson(parsed) === expected;
  expect(() => parsedCanonicalJson(parsed)).toThrow(/surrogate/i);
  return true;
}

describe('parsedCanonicalJson', () => {
  it('equals canonicalJson on a corpus of edge cases, after a JSON round trip', () => {
    for (const v of corpus) {
      const parsed: unknown = JSON.parse(JSON.stringify(v));
      expect(sameAsLedger(parsed)).toBe(true);
    }
  });

  it('equals canonicalJson on 2,000 random JSON values', () => {
    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 2000; i++) {
      const parsed: unknown = JSON.parse(JSON.stringify(randomValue(0, rnd)));
      expect(sameAsLedger(parsed)).toBe(true);
    }
  });

  it('equals canonicalJson on values whose keys are already in canonical order (the native fast path)', () => {
    let seed = 777;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    let fastPathInputs = 0;
    for (let i = 0; i < 2000; i++) {
      let text: string;
      try {
        text = canonicalJson(JSON.parse(JSON.stringify(randomValue(0, rnd))));
      } catch {
        continue; // a lone surrogate: covered above
      }
      const parsed: unknown = JSON.parse(text);
      fastPathInputs++;
      expect(parsedCanonicalJson(parsed)).toBe(text);
    }
    expect(fastPathInputs).toBeGreaterThan(1000);
  });

  it('refuses nesting deeper than the limit, sorted or not, and accepts it at the limit', () => {
    const nest = (depth: number, inner: unknown): unknown => (depth === 0 ? inner : { a: nest(depth - 1, inner) });
    expect(parsedCanonicalJson(nest(MAX_CANONICAL_DEPTH, 1))).toBe(canonicalJson(nest(MAX_CANONICAL_DEPTH, 1)));
    expect(() => parsedCanonicalJson(nest(MAX_CANONICAL_DEPTH + 1, 1))).toThrow(/deeper/);
    expect(() => parsedCanonicalJson(nest(MAX_CANONICAL_DEPTH + 1, { b: 1, a: 2 }))).toThrow(/deeper/);
    expect(() => parsedCanonicalJson(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`))).toThrow(/deeper/);
  });
});
