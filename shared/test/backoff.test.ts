import { describe, expect, it } from 'vitest';
import { backoffMs } from '../src/time/backoff.js';

describe('backoffMs', () => {
  it('doubles per consecutive failure from the base, up to the cap', () => {
    const o = { baseMs: 100, maxMs: 1000, jitter: false };
    expect([1, 2, 3, 4, 5, 60].map((n) => backoffMs(n, o))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(backoffMs(0, o)).toBe(100);
  });

  it('with jitter, waits a random time in [d/2, d]', () => {
    const o = (r: number) => ({ baseMs: 100, maxMs: 1000, jitter: true, random: () => r });
    expect(backoffMs(1, o(0))).toBe(50);
    expect(backoffMs(1, o(1))).toBe(100);
    expect(backoffMs(3, o(1))).toBe(400);
    expect(backoffMs(30, o(1))).toBe(1000);
    expect(backoffMs(30, o(0))).toBe(500);
    expect(backoffMs(2, o(0.5))).toBe(150);
  });
});
