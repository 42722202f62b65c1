import { describe, expect, it } from 'vitest';
import { growingLru, TokenBuckets } from '@aduana/shared';

describe('growingLru', () => {
  it('forgets the least recently used key past maxKeys, a read counting as a use', () => {
    const c = growingLru<string, number>(3);
    c.set('a', 1).set('b', 2).set('c', 3);
    expect(c.get('a')).toBe(1); // a is now the most recent: b is the oldest
    c.set('d', 4);
    expect(c.has('b')).toBe(false);
    expect([c.get('a'), c.get('c'), c.get('d')]).toEqual([1, 3, 4]);
    expect(c.size).toBe(3);
    c.set('c', 30); // overwriting an existing key evicts nothing
    expect(c.size).toBe(3);
    expect(c.get('c')).toBe(30);
  });

  it('holds memory for the keys it has, not for maxKeys', () => {
    const before = process.memoryUsage().arrayBuffers;
    const caches = Array.from({ length: 20 }, () => growingLru<string, number>(1_000_000));
    // With `max`, lru-cache would have allocated typed index arrays for 20 million keys here (tens of MiB).
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1 << 20);
    expect(caches.every((c) => c.size === 0)).toBe(true);
    const one = caches[0]!;
    for (let i = 0; i < 1_500; i++) one.set(`k${String(i)}`, i);
    expect(one.size).toBe(1_500);
  });

  it('refuses a bound below 1', () => {
    expect(() => growingLru(0)).toThrow(RangeError);
  });

  it('keeps token buckets bounded: a forgotten key starts full again', () => {
    const b = new TokenBuckets({ capacity: 1, refillPerSecond: 0, maxKeys: 2 }, () => 0);
    expect(b.take('x').allowed).toBe(true);
    expect(b.take('x').allowed).toBe(false);
    b.take('y');
    b.take('z'); // x is forgotten
    expect(b.take('x').allowed).toBe(true);
  });
});
