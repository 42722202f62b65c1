import type { LRUCache } from 'lru-cache';
import { growingLru } from '../cache/growing-lru.js';

export interface BucketOptions {
  /** Tokens the bucket holds when full: the burst. */
  capacity: number;
  /** Tokens added per second. */
  refillPerSecond: number;
  /** How many keys to remember; the least recently used are forgotten (and start full again). */
  maxKeys?: number;
}

export interface TakeResult {
  allowed: boolean;
  /** Whole seconds until a token is available; >= 1 when refused, 0 when allowed. */
  retryAfterS: number;
  remaining: number;
}

/** A bucket's state: the tokens it held at `last` (ms). */
export interface Bucket {
  tokens: number;
  last: number;
}

const ALLOWED: TakeResult = Object.freeze({ allowed: true, retryAfterS: 0, remaining: Infinity });

/**
 * Token buckets by key, in memory. Lazily refilled on each take: no timers. `capacity: Infinity` means unlimited.
 */
export class TokenBuckets {
  readonly #capacity: number;
  readonly #refillPerMs: number;
  readonly #buckets: LRUCache<string, Bucket>;

  constructor(
    options: BucketOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.#capacity = options.capacity;
    this.#refillPerMs = options.refillPerSecond / 1000;
    this.#buckets = growingLru(options.maxKeys ?? 100_000);
  }

  take(key: string, cost = 1): TakeResult {
    if (this.#capacity === Infinity) return ALLOWED;
    const now = this.now();
    let b = this.#buckets.get(key);
    if (!b) {
      b = { tokens: this.#capacity, last: now };
      this.#buckets.set(key, b);
    }
    return takeToken(b, now, this.#capacity, this.#refillPerMs, cost);
  }

  reset(key: string): void {
    this.#buckets.delete(key);
  }
}

/**
 * Takes `cost` tokens from a bucket (updated in place: refilled to `now`, less the cost when allowed). The one
 * arithmetic of every token bucket, whether it is kept here or elsewhere (shared memory).
 */
export function takeToken(b: Bucket, now: number, capacity: number, refillPerMs: number, cost = 1): TakeResult {
  if (now > b.last) {
    b.tokens = Math.min(capacity, b.tokens + (now - b.last) * refillPerMs);
    b.last = now;
  }
  if (b.tokens >= cost) {
    b.tokens -= cost;
    return { allowed: true, retryAfterS: 0, remaining: Math.floor(b.tokens) };
  }
  const waitMs = refillPerMs > 0 ? (cost - b.tokens) / refillPerMs : Infinity;
  return { allowed: false, retryAfterS: Math.max(1, Math.ceil(waitMs / 1000)), remaining: 0 };
}
