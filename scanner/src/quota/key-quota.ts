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
  return {
    take(keyId, bucket) {
      const rule = rules[bucket];
      const t = now();
      const window = Math.floor(t / rule.windowMs);
      const key: [string, string, number] = [keyId, bucket, window];
      // One write transaction: two processes (or two requests) cannot both take the last unit. The answer is given
      // as soon as the transaction has decided, not when it has committed: the commit's thread hand-offs cost 10-20 ms
      // per request on a busy machine (docs/benchmarks.md), and a count lost to a crash in between costs one unit.
      return new Promise<void>((resolve, reject) => {
        store.root
          .transaction(() => {
            const used = store.quota.get(key) ?? 0;
            if (used >= rule.limit) {
              reject(new ScannerError(rule.code, Math.max(1, Math.ceil(((window + 1) * rule.windowMs - t) / 1000))));
              return;
            }
            void store.quota.put(key, used + 1);
            // The previous window's count is no longer read: dropped so the table stays one row per key and bucket.
            if (used === 0) void store.quota.remove([keyId, bucket, window - 1]);
            resolve();
          })
          .catch(reject);
      });
    },
  };
}
