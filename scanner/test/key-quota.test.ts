import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { ScannerError } from '../src/errors.js';
import { createKeyQuota } from '../src/quota/key-quota.js';
import { openScannerStore, type ScannerStore } from '../src/storage/scanner-store.js';
import { removeDataDir, tempDataDir } from './helpers/keyed-scanner.js';
import { testScannerConfig } from './helpers/test-config.js';

/**
 * The key quota service the KEY routes share (reports, crawls and renderings build on it), over a real LMDB store
 * and a controlled clock: the daily assessment quota and the named hourly buckets.
 */
let dir: string;
let store: ScannerStore;

beforeAll(() => {
  dir = tempDataDir();
  store = openScannerStore(dir);
});

afterAll(async () => {
  await store?.close();
  removeDataDir(dir);
});

async function refusal(p: Promise<void>): Promise<ScannerError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ScannerError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('key quota', () => {
  it('crawls: 5 per clock hour by default, then 429 with the whole seconds until the hour turns', async () => {
    let now = Date.UTC(2026, 10, 23, 10, 59, 30, 500);
    const quota = createKeyQuota(store, testScannerConfig({}), () => now);
    for (let i = 0; i < 5; i++) await quota.take('key-crawl', 'crawls');
    const err = await refusal(quota.take('key-crawl', 'crawls'));
    expect(err.code).toBe('quota_crawls');
    expect(err.status).toBe(429);
    expect(err.retryAfterS).toBe(30);
    // Another key, and another bucket of the same key, are counted apart.
    await quota.take('key-other', 'crawls');
    await quota.take('key-crawl', 'renderings');
    now = Date.UTC(2026, 10, 23, 11, 0, 0, 0);
    await quota.take('key-crawl', 'crawls');
  });

  it('concurrent takes of one process never overrun the quota, committed or not', async () => {
    const now = Date.UTC(2026, 10, 24, 9, 0, 0, 0);
    const quota = createKeyQuota(store, testScannerConfig({ SCANNER_KEY_DAILY_QUOTA: '5' }), () => now);
    const outcomes = await Promise.allSettled(Array.from({ length: 12 }, () => quota.take('key-burst', 'assessments')));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
    await store.root.committed;
    expect(store.quota.get(['key-burst', 'assessments', Math.floor(now / 86_400_000)])).toBe(5);
  });

  it('renderings: 10 per hour by default', async () => {
    const now = Date.UTC(2026, 10, 23, 12, 0, 0, 0);
    const quota = createKeyQuota(store, testScannerConfig({}), () => now);
    for (let i = 0; i < 10; i++) await quota.take('key-render', 'renderings');
    const err = await refusal(quota.take('key-render', 'renderings'));
    expect([err.code, err.retryAfterS]).toEqual(['quota_renderings', 3600]);
  });

  it('assessments: the configured daily quota, until UTC midnight, shared by every quota over the same store', async () => {
    const now = Date.UTC(2026, 10, 23, 23, 0, 0, 0);
    const config = testScannerConfig({ SCANNER_KEY_DAILY_QUOTA: '3' });
    const a = createKeyQuota(store, config, () => now);
    const b = createKeyQuota(store, config, () => now); // a second process on the same data directory
    // Each instance sees the other's units once they are committed (milliseconds later).
    await a.take('key-day', 'assessments');
    await store.root.committed;
    await b.take('key-day', 'assessments');
    await store.root.committed;
    await a.take('key-day', 'assessments');
    await store.root.committed;
    const err = await refusal(b.take('key-day', 'assessments'));
    expect([err.code, err.retryAfterS]).toEqual(['quota_exceeded', 3600]);
  });
  it('a unit whose commit is readable but not yet flushed is counted once, not twice', async () => {
    // lmdb-js makes a commit readable before the write's promise resolves (after the disk flush); this store holds
    // every flush back, so each unit is both visible in LMDB and still pending in the quota's memory.
    let release!: () => void;
    const flushed = new Promise<void>((r) => (release = r));
    const slowFlush = { ...store, root: { transaction: (cb: () => void) => store.root.transaction(cb).then(() => flushed) } } as unknown as ScannerStore;
    const now = Date.UTC(2026, 10, 23, 12, 10);
    const quota = createKeyQuota(slowFlush, testScannerConfig({}), () => now);
    const window = Math.floor(now / 3_600_000);
    for (let i = 1; i <= 5; i++) {
      await quota.take('key-slow-flush', 'crawls');
      // Wait until this unit's commit is readable, as it is on a busy machine long before its flush completes.
      await vi.waitFor(() => expect(store.quota.get(['key-slow-flush', 'crawls', window])).toBe(i));
    }
    expect((await refusal(quota.take('key-slow-flush', 'crawls'))).code).toBe('quota_crawls');
    release();
  });
});
