import canonicalizeModule from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

// canonicalJson takes two fast paths (native JSON.stringify for data already in key order, a sorted copy for plain
// data out of order) and hands everything else to the RFC 8785 reference implementation. Every path must write
// exactly the reference's text, or an entry's hash would change with the order its caller wrote the keys in.
const reference = canonicalizeModule as unknown as (value: unknown) => string | undefined;

class Point {
  constructor(
    readonly y: number,
    readonly x: number,
  ) {}
}

const deep = (n: number): unknown => (n === 0 ? { b: 1, a: 2 } : { z: deep(n - 1), a: n });

const corpus: Record<string, unknown> = {
  'sorted plain data': { a: 1, b: [true, null, 'x'], c: { d: 0.1, e: -0 } },
  'a caller payload, keys as written': JSON.parse('{"tool":"search","step":3,"args":{"region":"south","page":1},"tags":[{"z":1,"a":2}]}'),
  'unsorted keys inside sorted ones': { a: { y: 1, x: 2 }, b: [{ d: [{ f: 1, e: 2 }], c: 3 }] },
  'keys by code unit, not by locale': { b: 1, a: 2, A: 3, _: 4, '': 5, é: 6, e: 7, '€': 10, '😀': 11, דּ: 12 },
  'integer keys (enumerated first whatever their order)': { b: 1, '10': 2, '9': 3, a: 4 },
  'integer keys already in code-unit order': { '1': 'x', a: 'y' },
  'a digit-led key that is not an integer': { '1a': 1, '01': 2, b: 3 },
  'numbers as ES serialises them': { n: [1e21, 1e-7, 0.1, 123456789012345680000, -1.5e-300, Number.MAX_SAFE_INTEGER, 1.7976931348623157e308] },
  'escapes in strings and keys': { 'k"\\\n': 'olá ✓ 𝄞 "quoted" \\ / \n\t\u0000\u001f\u007f\u2028', a: 'plain' },
  'nested deeper than the fast walk': deep(40),
  'toJSON (a Date)': { when: new Date(Date.UTC(2026, 10, 25)), a: 1 },
  'a class instance': { p: new Point(1, 2) },
  'undefined members are dropped': { b: undefined, a: 1, c: [1] },
  'a null-prototype object': Object.assign(Object.create(null) as object, { b: 1, a: 2 }),
  'empty containers': { b: {}, a: [] },
  'a "__proto__" key, as JSON.parse makes it (an own property)': JSON.parse('{"b":1,"__proto__":{"y":1,"x":2},"a":[{"__proto__":0,"":1}]}'),
  'a "__proto__" key in an object already in order, below one out of order': JSON.parse('{"z":{"__proto__":1,"a":{"d":1,"c":2}},"a":0}'),
};

function randomValue(depth: number, rnd: () => number): unknown {
  const r = rnd();
  if (depth > 4 || r < 0.3) {
    const p = rnd();
    if (p < 0.25) return (rnd() - 0.5) * 10 ** Math.floor(rnd() * 40 - 20);
    if (p < 0.5) return String.fromCharCode(...Array.from({ length: Math.floor(rnd() * 8) }, () => 0x20 + Math.floor(rnd() * 0xd000)));
    if (p < 0.75) return rnd() < 0.5;
    return null;
  }
  if (r < 0.55) return Array.from({ length: Math.floor(rnd() * 4) }, () => randomValue(depth + 1, rnd));
  const obj: Record<string, unknown> = {};
  const keys = Math.floor(rnd() * 6);
  for (let i = 0; i < keys; i++) {
    const key = rnd() < 0.1 ? String(Math.floor(rnd() * 100)) : String.fromCharCode(...Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => 0x20 + Math.floor(rnd() * 0x3000)));
    obj[key] = randomValue(depth + 1, rnd);
  }
  return obj;
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('canonicalJson', () => {
  for (const [name, value] of Object.entries(corpus)) {
    it(`writes the reference text: ${name}`, () => {
      expect(canonicalJson(value)).toBe(reference(value));
    });
  }

  it('writes the reference text for 5,000 random values, and for each as JSON.parse reads it back', () => {
    const rnd = seeded(20261125);
    for (let i = 0; i < 5000; i++) {
      const value = randomValue(0, rnd);
      expect(canonicalJson(value)).toBe(reference(value));
      const parsed: unknown = JSON.parse(JSON.stringify(value));
      expect(canonicalJson(parsed)).toBe(reference(parsed));
    }
  });

  it('leaves the value it sorts as it was', () => {
    const value = JSON.parse('{"tool":"search","args":{"region":"south","page":1},"list":[{"z":1,"a":2}]}') as Record<string, unknown>;
    const before = JSON.stringify(value);
    canonicalJson(value);
    expect(JSON.stringify(value)).toBe(before);
  });

  it('refuses what JSON cannot carry, as the reference does', () => {
    for (const bad of [{ a: Number.NaN }, { b: 1, a: Infinity }, { b: '\ud800', a: 1 }, { ['\udc00']: 1 }]) {
      expect(() => reference(bad)).toThrow();
      expect(() => canonicalJson(bad)).toThrow();
    }
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });
});
