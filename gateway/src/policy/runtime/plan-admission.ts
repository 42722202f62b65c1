import { LRUCache } from 'lru-cache';
import type { BucketOptions } from '@aduana/shared';
import type { Principal } from '../../identity/auth/principal.js';
import { PlanBuckets, createPlanBucketMemory } from '../../identity/tenants/plan-buckets.js';
import { bucketFor, PLAN_NAMES, planLimitExceeded, type Plan } from '../../identity/tenants/plans.js';
import type { SharedTableMemory } from '../../platform/shared-table.js';
import type { LocalBucket, SharedLimits } from '../../fleet/limits/shared-limits.js';
import type { TenantRepository } from '../../storage/repositories.js';

/** Each tenant's plan, and the plan's rate limit every authenticated request is admitted by. */
export class PlanAdmission {
  readonly #buckets: Record<Plan, LocalBucket>;
  readonly #bucketOptions: Record<Plan, BucketOptions>;
  /** With REDIS_URL: plan limits counted tenant-wide (docs/fleet.md, "Shared limits"); null = this process alone. */
  #shared: SharedLimits | null = null;
  /** Plans are re-read every few seconds so `aduana tenant create/plan` from the CLI takes effect without a restart. */
  readonly #plans: LRUCache<string, Plan>;
  /** Told when a tenant's plan changed here: request threads are told (TENANT_RUNTIME_CHANGES). */
  onChange: ((tenantId: string) => void) | null = null;

  constructor(
    private readonly tenants: TenantRepository,
    now: () => number = Date.now,
    memory: SharedTableMemory = createPlanBucketMemory(),
  ) {
    this.#bucketOptions = Object.fromEntries(PLAN_NAMES.map((p) => [p, bucketFor(p)])) as Record<Plan, BucketOptions>;
    const planBuckets = new PlanBuckets(memory, now);
    this.#buckets = Object.fromEntries(PLAN_NAMES.map((p) => [p, { take: (tenantId: string) => planBuckets.take(p, this.#bucketOptions[p], tenantId) }])) as Record<Plan, LocalBucket>;
    this.#plans = new LRUCache({ max: 10_000, ttl: 5_000 });
  }

  plan(tenantId: string): Plan {
    let plan = this.#plans.get(tenantId);
    if (!plan) {
      plan = this.tenants.get(tenantId)?.plan ?? 'community';
      this.#plans.set(tenantId, plan);
    }
    return plan;
  }

  /** Drops the cached plan of a tenant: the next request reads the stored one (a sidecar taking a new bundle). */
  refreshPlan(tenantId: string): void {
    this.#plans.delete(tenantId);
    this.onChange?.(tenantId);
  }

  /** Counts plan limits on Redis from now on (set once at start when REDIS_URL is set). */
  useSharedLimits(shared: SharedLimits): void {
    this.#shared = shared;
  }

  /**
   * The tenant's plan rate limit (docs/decisions.md, "Limits"): a token bucket per tenant; 429 with Retry-After past it.
   * Synchronous in this process alone; with shared limits a promise (one Redis round trip) unless the plan is unlimited
   * or Redis is away (docs/fleet.md, "Shared limits").
   */
  admit(principal: Principal): void | Promise<void> {
    const tenantId = principal.tenantId;
    const plan = this.plan(tenantId);
    const local = this.#buckets[plan];
    if (this.#shared !== null) {
      const bucket = this.#bucketOptions[plan];
      // An unlimited plan has nothing to count: no round trip.
      if (bucket.capacity !== Infinity) return this.#shared.admit(tenantId, bucket, local);
    }
    const r = local.take(tenantId);
    if (!r.allowed) throw planLimitExceeded(r.retryAfterS);
  }
}
