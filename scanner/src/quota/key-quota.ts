import type { ScannerConfig } from '../config.js';
import { ScannerError, type ErrorCode } from '../errors.js';
import type { ScannerStore } from '../storage/scanner-store.js';

/**
 * What an API key may spend (docs/scanner.md, "Quotas"): `assessments` per UTC day (recorded assessments, monitor
 * runs started by hand and reports all count), `crawls` and `renderings` per clock hour. Counted in LMDB, so every
 * process on one data directory shares the count and a restart does not reset it.
 */
export type QuotaBucket = 'assessments' | 'crawls' | 'renderings';

interface BucketRule {
  readonly limit: number;
  readonly windowMs: number;
  readonly code: ErrorCode;
}

export interface KeyQuota {
  /** Takes one unit of `bucket` for the key, or throws 429 with the whole seconds until the window turns. */
  take(keyId: string, bucket: QuotaBucket): Promise<void>;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export function createKeyQuota(store: ScannerStore, config: ScannerConfig, now: () => number = Date.now): KeyQuota {
  const rules: Record<QuotaBucket, BucketRule> = {
    assessments: { limit: config.keyDailyQuota, windowMs: DAY_MS, code: 'quota_exceeded' },
    crawls: { limit: config.keyCrawlsPerHour, windowMs: HOUR_MS, code: 'quota_crawls' },
    renderings: { limit: config.keyRenderingsPerHour, windowMs: HOUR_MS, code: 'quota_renderings' },
  };
  // Units this process has taken whose increment is not committed yet: added to the committed count, so concurrent
  // requests of one process can never overrun the quota.
  const pending = new Map<string, number>();
  return {
    take(keyId, bucket) {
      const rule = rules[bucket];
      const t = now();
      const window = Math.floor(t / rule.windowMs);
      const key: [string, string, number] = [keyId, bucket, window];
      const id = `${keyId} ${bucket} ${String(window)}`;
      const mine = pending.get(id) ?? 0;
      // Decided from a memory-mapped read, without waiting for a write: a write's commit, and the disk flush of the
      // previous one it may queue behind, cost 10-20 ms per request on a busy machine (docs/benchmarks.md). Processes
      // sharing the data directory see each other's units once committed (milliseconds later), so two of them taking
      // the very last units at the same instant may overrun the quota by those few units.
      if ((store.quota.get(key) ?? 0) + mine >= rule.limit) {
        return Promise.reject(new ScannerError(rule.code, Math.max(1, Math.ceil(((window + 1) * rule.windowMs - t) / 1000))));
      }
      pending.set(id, mine + 1);
      const settle = (): void => {
        const left = (pending.get(id) ?? 1) - 1;
        if (left <= 0) pending.delete(id);
        else pending.set(id, left);
      };
      store.root
        .transaction(() => {
          const used = store.quota.get(key) ?? 0;
          void store.quota.put(key, used + 1);
          // The previous window's count is no longer read: dropped so the table stays one row per key and bucket.
          if (used === 0) void store.quota.remove([keyId, bucket, window - 1]);
        })
        .then(settle, settle);
      return Promise.resolve();
    },
  };
}
