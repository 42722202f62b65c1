import type { BucketOptions, Logger, TakeResult } from '@aduana/shared';
import { GatewayError } from '../../errors.js';
import { planLimitExceeded } from '../../identity/tenants/plans.js';
import { periodKey } from '../../policy/tenant-state.js';
import { RedisConnection, type RedisConnectionOptions } from './redis-connection.js';
import { SharedTokenBuckets } from './shared-token-bucket.js';
import { SharedSpend, type SpendTotals } from './shared-spend.js';
import { SharedWindows, type WindowHit } from './shared-windows.js';

export interface SharedLimitsOptions extends RedisConnectionOptions {
  /** How often the spend totals of active tenants are read back from Redis (spend made at other gateways), ms. */
  spendSyncMs: number;
}

/** What the shared limits read from the tenant limits (policy/runtime/tenant-limits.ts): where totals go, and which tenants are active. */
export interface SharedLimitsHost extends SpendTotals {
  activeTenants(): Iterable<string>;
}

/** The process's own bucket of a plan, which decides while Redis is away. */
export interface LocalBucket {
  take(tenantId: string): TakeResult;
}

/** Times this process used its local limits because Redis was unreachable, by what was being counted. */
export interface FallbackCounts {
  /** Plan admissions. */
  rate_limit: number;
  spend: number;
  /** Requests whose `rate_limit` policy windows were judged by this process's own count. */
  rate_policy: number;
}

/**
 * Plan rate limits, `rate_limit` policy windows and budgets counted tenant-wide on Redis (docs/fleet.md, "Shared
 * limits"). Redis away (down, not yet connected, or too slow to answer) never refuses or holds traffic: the admission
 * is made by this process's own bucket, and the windows judged by its own count, at once, and counted as a fallback;
 * when Redis answers again, the shared bucket and windows are used again.
 */
export class SharedLimits {
  readonly #conn: RedisConnection;
  readonly #buckets: SharedTokenBuckets;
  readonly #spend: SharedSpend;
  readonly #windows: SharedWindows;
  readonly #fallbacks: FallbackCounts = { rate_limit: 0, spend: 0, rate_policy: 0 };
  readonly #host: SharedLimitsHost;
  readonly #timer: NodeJS.Timeout;
  readonly #onFallback: (tenantId: string) => void;

  /** `onFallback`: told of each fallback with its tenant (the per-tenant `limits.redis_fallbacks` metric). */
  constructor(options: SharedLimitsOptions, host: SharedLimitsHost, logger: Logger, onFallback: (tenantId: string) => void = () => {}) {
    const prefix = 'aduana:';
    this.#conn = new RedisConnection(options, logger);
    this.#host = host;
    this.#buckets = new SharedTokenBuckets(this.#conn.client, prefix);
    this.#windows = new SharedWindows(this.#conn.client, prefix);
    this.#spend = new SharedSpend(
      this.#conn.client,
      prefix,
      host,
      () => this.#conn.ready,
      (tenantId) => {
        this.#fallbacks.spend++;
        onFallback(tenantId);
      },
    );
    this.#onFallback = onFallback;
    this.#timer = setInterval(() => void this.syncSpend(), options.spendSyncMs).unref();
  }

  /**
   * Takes a token from the tenant's shared bucket: resolves when admitted, rejects with 429 when the tenant is over its
   * plan across all gateways. Without Redis, `local` decides at once (synchronously).
   */
  admit(tenantId: string, bucket: BucketOptions, local: LocalBucket): void | Promise<void> {
    if (!this.#conn.ready) return this.#admitLocally(tenantId, local);
    return this.#buckets.take(tenantId, bucket).then(
      (r) => {
        if (!r.allowed) throw planLimitExceeded(r.retryAfterS);
      },
      (err: unknown) => {
        if (err instanceof GatewayError) throw err;
        this.#admitLocally(tenantId, local);
      },
    );
  }

  #admitLocally(tenantId: string, local: LocalBucket): void {
    this.#fallbacks.rate_limit++;
    this.#onFallback(tenantId);
    const r = local.take(tenantId);
    if (!r.allowed) throw planLimitExceeded(r.retryAfterS);
  }

  /**
   * Counts one hit of a request in each of its `rate_limit` policy windows on Redis and answers the windows'
   * tenant-wide estimates, in order. null when this process's own count must decide (Redis away: at once, without a
   * promise; a failed or timed-out command: the promise resolves null), counted as a fallback either way. The caller
   * counts every hit locally too, so a command that timed out but was applied errs towards counting twice.
   */
  countWindows(tenantId: string, windows: readonly WindowHit[]): Promise<readonly number[] | null> | null {
    if (!this.#conn.ready) return this.#windowsLocally(tenantId);
    return this.#windows.hit(tenantId, windows).then(
      (estimates) => estimates,
      () => this.#windowsLocally(tenantId),
    );
  }

  #windowsLocally(tenantId: string): null {
    this.#fallbacks.rate_policy++;
    this.#onFallback(tenantId);
    return null;
  }

  /** A cost the caller already added to its local totals: sent to Redis on the next turn of the event loop. */
  addSpend(tenantId: string, who: string, periodKey: string, brl: number): void {
    this.#spend.add(tenantId, who, periodKey, brl);
  }

  /** Sends what is pending and reads back the current day's and month's totals of every active tenant. */
  syncSpend(now = Date.now()): Promise<void> {
    return this.#spend.sync(this.#host.activeTenants(), [periodKey('day', now), periodKey('month', now)]);
  }

  get fallbacks(): Readonly<FallbackCounts> {
    return this.#fallbacks;
  }

  get connected(): boolean {
    return this.#conn.ready;
  }

  /** Sends the spend still pending (when Redis is there), then disconnects. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    if (this.#conn.ready) await this.syncSpend();
    await this.#conn.close();
  }
}
