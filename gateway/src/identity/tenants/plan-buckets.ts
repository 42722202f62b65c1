import { takeToken, type Bucket, type BucketOptions, type TakeResult } from '@aduana/shared';
import { SharedTable, type SharedTableMemory } from '../../platform/shared-table.js';

const ALLOWED: TakeResult = Object.freeze({ allowed: true, retryAfterS: 0, remaining: Infinity });
/** Tenants counted at once: past 130,000 the least recently seen start full again. */
const SLOTS = 1 << 17;
const TOKENS = 1;
const LAST = 2;

export function createPlanBucketMemory(): SharedTableMemory {
  return SharedTable.create(SLOTS, 2);
}

/**
 * The plans' token buckets, one per tenant and plan, in shared memory: every thread takes from the same bucket, so a
 * tenant's plan limit is one limit however many threads serve it. A tenant moved to another plan starts that plan's
 * bucket full.
 */
export class PlanBuckets {
  readonly #table: SharedTable;
  /** The bucket a take works on, read from and written back to its record (one thread runs one take at a time). */
  readonly #scratch: Bucket = { tokens: 0, last: 0 };

  constructor(
    memory: SharedTableMemory = createPlanBucketMemory(),
    private readonly now: () => number = Date.now,
  ) {
    this.#table = new SharedTable(memory);
  }

  get memory(): SharedTableMemory {
    return this.#table.memory;
  }

  /** Takes one token from the tenant's bucket of `plan`, whose size and refill `bucket` gives. */
  take(plan: string, bucket: BucketOptions, tenantId: string): TakeResult {
    if (bucket.capacity === Infinity) return ALLOWED;
    const now = this.now();
    const t = this.#table;
    const slot = t.acquire(plan, tenantId, now);
    const at = slot * t.stride;
    const b = this.#scratch;
    try {
      b.tokens = t.fresh ? bucket.capacity : (t.values[at + TOKENS] as number);
      b.last = t.fresh ? now : (t.values[at + LAST] as number);
      const r = takeToken(b, now, bucket.capacity, bucket.refillPerSecond / 1000);
      t.values[at + TOKENS] = b.tokens;
      t.values[at + LAST] = b.last;
      return r;
    } finally {
      t.release(slot);
    }
  }
}
