import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import canonicalizeModule from 'canonicalize';
import { canonicalJson, inNativeCanonicalForm } from '../src/hashing/canonical-json.js';

// The reference implementation, called directly: canonicalJson must answer exactly what it answers, or throw as it does.
const reference = canonicalizeModule as unknown as (value: unknown) => string | undefined;

/** A copy of a JSON value with every object's keys in code-unit order, as the gateway builds its ledger entries. */
function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) out[k] = sortedCopy((value as Record<string, unknown>)[k]);
  return out;
}

function outcome(f: () => string | undefined): string {
  try {
    return `ok ${f()}`;
  } catch {
    return 'throws';
  }
}

describe('canonicalJson: the native fast path', () => {
  it('answers what the reference implementation answers, for any JSON value, in any key order and sorted', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(outcome(() => canonicalJson(v))).toBe(outcome(() => reference(v)));
        const sorted = sortedCopy(v);
        expect(outcome(() => canonicalJson(sorted))).toBe(outcome(() => reference(sorted)));
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the fast path only where JSON.stringify is already canonical', () => {
    expect(inNativeCanonicalForm({ a: 1, b: [true, null, 'x'], c: { d: 0.5 } }, 0)).toBe(true);
    expect(inNativeCanonicalForm({ b: 1, a: 2 }, 0)).toBe(false);
    // Integer-like keys enumerate first, in numeric order: '10' before '9' is not code-unit order.
    expect(inNativeCanonicalForm({ 9: 1, 10: 2 }, 0)).toBe(false);
    expect(inNativeCanonicalForm({ a: undefined }, 0)).toBe(false);
    expect(inNativeCanonicalForm({ a: new Date(0) }, 0)).toBe(false);
    expect(inNativeCanonicalForm({ a: { toJSON: () => 1 } }, 0)).toBe(false);
    expect(inNativeCanonicalForm([Number.NaN], 0)).toBe(false);
    expect(inNativeCanonicalForm(['\ud800'], 0)).toBe(false);
    expect(inNativeCanonicalForm(Object.assign(Object.create(null) as object, { a: 1 }), 0)).toBe(true);
  });

  it('leaves what the fast path does not take to the reference, with its results and its refusals', () => {
    const cases: unknown[] = [
      { b: 1, a: 2 },
      { 9: 1, 10: 2, a: 0 },
      { a: undefined, b: [undefined, 1] },
      { when: new Date(0), n: Object(3) as unknown },
      { a: { toJSON: () => ({ z: 1, y: 2 }) } },
      [Number.NaN],
      { x: Number.POSITIVE_INFINITY },
      { s: 'lone \ud800' },
      { '\ud800': 1 },
    ];
    for (const v of cases) expect(outcome(() => canonicalJson(v))).toBe(outcome(() => reference(v)));
    // Deeper than the walk goes: the reference takes over (and still answers).
    let deep: unknown = { a: 1 };
    for (let i = 0; i < 100; i++) deep = { n: deep };
    expect(canonicalJson(deep)).toBe(reference(deep));
    // A cycle is refused, as the reference refuses it.
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow();
  });
});
