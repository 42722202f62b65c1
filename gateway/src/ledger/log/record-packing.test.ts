import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packHex, unpackHex } from './record-packing.js';

const hex = (n: number) => fc.uint8Array({ minLength: n / 2, maxLength: n / 2 }).map((b) => Buffer.from(b).toString('hex'));

describe('packing hex strings of a record text', () => {
  it('halves 32- and 64-digit lowercase hex strings and gives back the exact bytes', () => {
    const text = Buffer.from(JSON.stringify({ a: 'ab'.repeat(32), b: 'cd'.repeat(16), c: 'x', n: 1 }));
    const packed = packHex(text)!;
    expect(packed.length).toBe(text.length - (66 - 33) - (34 - 17));
    expect(unpackHex(packed).equals(text)).toBe(true);
  });

  it('leaves alone what is not exactly such a string: other lengths, capitals, unquoted or escaped-quote runs', () => {
    const texts = [
      JSON.stringify({ a: 'ab'.repeat(31), b: 'ab'.repeat(33), c: 'AB'.repeat(32), d: `x${'ab'.repeat(32)}`, e: `${'ab'.repeat(32)}x` }),
      JSON.stringify({ q: `"${'ab'.repeat(32)}"`, s: `\\"${'ab'.repeat(16)}` }),
      `"${'ab'.repeat(32)}`,
      `${'ab'.repeat(32)}"`,
    ];
    for (const t of texts) {
      const text = Buffer.from(t);
      expect(unpackHex(packHex(text)!).equals(text)).toBe(true);
    }
    const unpacked = Buffer.from(JSON.stringify({ a: 'ab'.repeat(31), c: 'AB'.repeat(32) }));
    expect(packHex(unpacked)!.equals(unpacked)).toBe(true);
  });

  it('round-trips any canonical JSON, hashes and ids among its strings', () => {
    const value = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), hex(32), hex(64), fc.integer(), fc.constant(null));
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(value, fc.array(value, { maxLength: 4 }))), (obj) => {
        const text = Buffer.from(JSON.stringify(obj));
        const packed = packHex(text);
        expect(packed).not.toBeNull();
        expect(unpackHex(packed!).equals(text)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('does not pack a text holding a control byte (the markers would be ambiguous)', () => {
    expect(packHex(Buffer.from(`{"a":"\u0001","h":"${'ab'.repeat(32)}"}`))).toBeNull();
  });

  it('refuses a marker cut short (damage), rather than reading past the end', () => {
    const packed = packHex(Buffer.from(JSON.stringify({ h: 'ab'.repeat(32) })))!;
    expect(() => unpackHex(packed.subarray(0, 10))).toThrow(RangeError);
  });
});
