import type { LRUCache } from 'lru-cache';
import { growingLru, TokenBuckets } from '@aduana/shared';
import { GatewayError } from '../../errors.js';

/**
 * Failed token verifications per client address (GET /verify), so the endpoint cannot be used to try tokens at speed.
 * Once an address has spent its budget it is refused outright until the budget refills, valid tokens included:
 * answering only the invalid ones with 429 would tell a guesser which guess was right.
 */
export class VerifyFailures {
  readonly #buckets: TokenBuckets;
  /** Address -> epoch ms until which it is refused. */
  readonly #blocked: LRUCache<string, number> = growingLru(100_000);

  constructor(
    perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#buckets = new TokenBuckets({ capacity: perMinute, refillPerSecond: perMinute / 60 }, now);
  }

  /** Throws 429 while `address` is refused. */
  assertAllowed(address: string): void {
    const until = this.#blocked.get(address);
    if (until === undefined) return;
    const waitMs = until - this.now();
    if (waitMs <= 0) {
      this.#blocked.delete(address);
      return;
    }
    throw refused(Math.max(1, Math.ceil(waitMs / 1000)));
  }

  /** Counts a failed verification; throws 429 (and refuses the address for a while) once the budget is spent. */
  recordFailure(address: string): void {
    const r = this.#buckets.take(address);
    if (r.allowed) return;
    this.#blocked.set(address, this.now() + r.retryAfterS * 1000);
    throw refused(r.retryAfterS);
  }
}

function refused(retryAfterS: number): GatewayError {
  return new GatewayError('rate_limited', `too many failed verifications from this address; retry in ${retryAfterS} s`, '', { 'retry-after': String(retryAfterS) });
}
