import { describe, expect, it } from 'vitest';
import { BoundedLru, TokenBuckets } from '@aduana/shared';

describe('BoundedLru', () => {
  it('forgets the least recently used key past max, a read counting as a use', () => {
    const c = new BoundedLru<string, number>({ max: 3 });
    c.set('a', 1).set('b', 2).set('c', 3);
    expect(c.get('a')).toBe(1); // a is now the most recent: b is the oldest
    c.set('d', 4);
    expect(c.has('b')).toBe(false);
    expect([c.get('a'), c.get('c'), c.get('d')]).toEqual([1, 3, 4]);
    expect(c.size).toBe(3);
    c.set('c', 30); // overwriting an existing key evicts nothing
    expect(c.size).toBe(3);
    expect(c.get('c')).toBe(30);
    expect(c.delete('c')).toBe(true);
    expect(c.get('c')).toBeUndefined();
  });

  it('expires an entry ttl ms after it was set', () => {
    let now = 1_000;
    const c = new BoundedLru<string, number>({ max: 10, ttl: 100, now: () => now });
    c.set('s', 5);
    now = 1_099;
    expect(c.get('s')).toBe(5);
    now = 1_100;
    expect(c.has('s')).toBe(false);
    expect(c.get('s')).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('holds memory for the keys it has, not for max', () => {
    const before = process.memoryUsage().arrayBuffers;
    const caches = Array.from({ length: 20 }, () => new BoundedLru<string, number>({ max: 1_000_000 }));
    // lru-cache would have allocated typed index arrays for 20 million keys here (hundreds of MiB).
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1 << 20);
    expect(caches.every((c) => c.size === 0)).toBe(true);
  });

  it('refuses a max below 1', () => {
    expect(() => new BoundedLru({ max: 0 })).toThrow(RangeError);
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
