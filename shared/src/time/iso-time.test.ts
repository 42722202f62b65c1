import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.js';

describe('isoTime', () => {
  it('writes what toISOString writes, at the edges of seconds, days and leap years', () => {
    const edges = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 59_999, 86_399_999, 86_400_000, 951_782_400_000, 951_868_799_999, 1_709_164_800_000, 253_402_300_799_999];
    for (const ms of edges) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('writes what toISOString writes for random instants, in and out of order', () => {
    let ms = Date.now();
    for (let i = 0; i < 20_000; i++) {
      // Mostly steps within a second (the cached prefix reused), sometimes a jump anywhere in 1970..9999.
      ms = Math.random() < 0.9 ? ms + Math.floor(Math.random() * 400) : Math.floor(Math.random() * 253_402_300_800_000);
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it('truncates fractions as Date does, and leaves what it does not format to toISOString', () => {
    expect(isoTime(1_700_000_000_123.9)).toBe(new Date(1_700_000_000_123.9).toISOString());
    expect(isoTime(-1)).toBe('1969-12-31T23:59:59.999Z');
    expect(isoTime(-0.5)).toBe(new Date(-0.5).toISOString());
    expect(isoTime(253_402_300_800_000)).toBe('+010000-01-01T00:00:00.000Z');
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });
});
