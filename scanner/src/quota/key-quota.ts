import type { ScannerConfig } from '../config.js';
import { ScannerError, type ErrorCode } from '../errors.js';
import type { ScannerStore } from '../storage/scanner-store.js';

/**
 * What an API key may spend (docs/scanner.md, "Quotas"): `assessments` per UTC day (recorded assessments, monitor
 * runs, scheduled ones charged to the key that created the monitor, and reports all count), `crawls` and `renderings`
 * per clock hour. Counted in LMDB, so every process on one data directory shares the count and a restart does not
 * reset it.
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
  // This process's units whose increments are not known to be durable yet, per key, bucket and window: `queued` were
  // taken and wait for their transaction; `written` is the count the last transaction wrote (every unit before it,
  // this process's and others'). lmdb-js makes a commit readable before its promise resolves (after the flush), so a
  // written unit is counted as max(what a read sees, written): once, whether or not its commit is visible yet.
  const pending = new Map<string, { queued: number; written: number; inFlight: number }>();
  return {
    take(keyId, bucket) {
      const rule = rules[bucket];
      const t = now();
      const window = Math.floor(t / rule.windowMs);
      const key: [string, string, number] = [keyId, bucket, window];
      const id = `${keyId} ${bucket} ${String(window)}`;
      const mine = pending.get(id);
      // Decided from a memory-mapped read, without waiting for a write: a write's commit, and the disk flush of the
      // previous one it may queue behind, cost 10-20 ms per request on a busy machine (docs/benchmarks-history.md,
      // "Organisations: recorded assessments and history"). Processes sharing the data directory see each other's
      // units once committed (milliseconds later), so two of them taking the very last units at the same instant may
      // overrun the quota by those few units.
      const committed = store.quota.get(key) ?? 0;
      const used = mine ? Math.max(committed, mine.written) + mine.queued : committed;
      if (used >= rule.limit) return Promise.reject(new ScannerError(rule.code, secondsUntilWindowEnds(window, rule.windowMs, t)));
      const entry = mine ?? { queued: 0, written: 0, inFlight: 0 };
      entry.queued++;
      entry.inFlight++;
      pending.set(id, entry);
      const settle = (): void => {
        if (--entry.inFlight === 0 && pending.get(id) === entry) pending.delete(id);
      };
      let ran = false;
      store.root
        .transaction(() => {
          ran = true;
          const before = store.quota.get(key) ?? 0;
          void store.quota.put(key, before + 1);
          entry.queued--;
          entry.written = before + 1;
          // The previous window's count is no longer read: dropped so the table stays one row per key and bucket.
          if (before === 0) void store.quota.remove([keyId, bucket, window - 1]);
        })
        .then(settle, () => {
          // Never written: the unit is given back.
          if (!ran) entry.queued--;
          settle();
        });
      return Promise.resolve();
    },
  };
}

/** Whole seconds (at least 1) from `t` until window `window` of `windowMs` ends: the Retry-After of a spent window. */
function secondsUntilWindowEnds(window: number, windowMs: number, t: number): number {
  return Math.max(1, Math.ceil(((window + 1) * windowMs - t) / 1000));
}

/**
 * Counts one unit of a per-key limit on fixed windows (`bucket`, e.g. monitor creations per clock hour) inside the
 * caller's LMDB write transaction, so the unit is spent only when what it guards is written in the same commit, and
 * two processes cannot both take the last one. Answers the Retry-After seconds instead when the window is spent (and
 * counts nothing). Rows share the quota table's layout, [keyId, bucket, window index].
 */
export function spendInTransaction(store: ScannerStore, keyId: string, bucket: string, rule: { readonly limit: number; readonly windowMs: number }, t: number): number | undefined {
  const window = Math.floor(t / rule.windowMs);
  const used = store.quota.get([keyId, bucket, window]) ?? 0;
  if (used >= rule.limit) return secondsUntilWindowEnds(window, rule.windowMs, t);
  void store.quota.put([keyId, bucket, window], used + 1);
  if (used === 0) void store.quota.remove([keyId, bucket, window - 1]);
  return undefined;
}
