import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonBody, scanStructure } from './json-body.js';

describe('scanStructure', () => {
  it('finds no duplicate in anything JSON.stringify writes (it cannot write one)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        expect(scanStructure(JSON.stringify(v) ?? 'null', 64)).toBeNull();
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it('finds a key repeated in any object, however spelled, and only in the same object', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { minKeys: 1, maxKeys: 8 }), fc.nat(), (obj, pick) => {
        const keys = Object.keys(obj);
        const key = keys[pick % keys.length] as string;
        const text = JSON.stringify(obj);
        const escaped = [...key].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
        const dup = `${text.slice(0, -1)},"${escaped}":0}`;
        expect(scanStructure(`{"wrap":${dup}}`, 64)).toBe(key);
        // The same key again as JSON.stringify spells it, after the object's other keys and nested values.
        expect(scanStructure(`{"wrap":${text.slice(0, -1)},${JSON.stringify(key)}:0}`, 64)).toBe(key);
        expect(scanStructure(`[${text},${text}]`, 64)).toBeNull();
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('parseJsonBody: 400 for duplicates and depth, invalid_json first for broken text', () => {
    expect(() => parseJsonBody(Buffer.from('{"a":1,"a":2}'))).toThrow(/duplicate key "a"/);
    expect(() => parseJsonBody(Buffer.from('['.repeat(100)))).toThrow(/nesting/);
    expect(() => parseJsonBody(Buffer.from('{"a":1,"a":'))).toThrow(/not valid JSON/);
    expect(parseJsonBody(Buffer.from('{"a":{"b":1},"c":{"b":2},"s":"\\"a\\":1,"}'))).toEqual({ a: { b: 1 }, c: { b: 2 }, s: '"a":1,' });
  });
});

describe('scanStructure on large objects', () => {
  it('finds a duplicate among many keys, and none when all differ', () => {
    const many = Array.from({ length: 5000 }, (_, i) => `"k${i}":${i}`);
    expect(scanStructure(`{${many.join(',')}}`, 64)).toBeNull();
    expect(scanStructure(`{${many.join(',')},"k4321":0}`, 64)).toBe('k4321');
    expect(scanStructure(`{"a":{${many.join(',')}},"b":{${many.join(',')}},"a":1}`, 64)).toBe('a');
    // A duplicate just past the point where an object's keys move to a Set, and one spelled with an escape there.
    const seventeen = many.slice(0, 17).join(',');
    expect(scanStructure(`{${seventeen},"k16":0}`, 64)).toBe('k16');
    expect(scanStructure(`{${seventeen},"k\\u0031":0}`, 64)).toBe('k1');
    expect(scanStructure(`{${many.slice(0, 16).join(',')}}`, 64)).toBeNull();
  });

  it('keeps nothing of one call for the next', () => {
    expect(scanStructure('{"a":1,"b":{"c":1', 64)).toBeNull();
    expect(scanStructure('{"c":1,"a":2}', 64)).toBeNull();
    expect(scanStructure(`{${Array.from({ length: 40 }, (_, i) => `"x${i}":0`).join(',')},"x3":`, 64)).toBe('x3');
    expect(scanStructure('{"x3":0}', 64)).toBeNull();
  });
});
