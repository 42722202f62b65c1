import type { Assessment } from '../assessment/assessment.js';
import type { HistoryItem, ScannerStore } from '../storage/scanner-store.js';

/** The history line of an assessment (docs/scanner.md, "History"). */
export function historyItem(a: Assessment): HistoryItem {
  return { scanId: a.scanId, url: a.url, timestamp: a.timestamp, globalScore: a.globalScore, grade: a.grade, profile: a.profile };
}

/**
 * Records one assessment for an organisation in one write transaction: the whole Assessment by scanId, its history
 * line under [orgId, time, scanId] (so a page of history is one short range read, whatever the total), and the
 * organisation's scan count (the overview reads it instead of counting).
 *
 * The write is queued (lmdb-js batches it into the next transaction) and the caller answers without waiting for it:
 * waiting for the batch's thread hand-offs and commit cost 10-20 ms per request on a busy machine (docs/benchmarks.md).
 * Readers of history first wait for pending commits (`readAfterWrites`), which include this one, so a client that got
 * its answer always reads its scan. Returns the commit, for callers that need it on disk (tests, benchmarks).
 */
export function recordAssessment(store: ScannerStore, orgId: string, a: Assessment): Promise<void> {
  const at = Date.parse(a.timestamp);
  return store.root
    .transaction(() => {
      void store.scans.put(a.scanId, { orgId, assessment: a });
      void store.history.put([orgId, at, a.scanId], historyItem(a));
      void store.counters.put([orgId, 'scans'], (store.counters.get([orgId, 'scans']) ?? 0) + 1);
    })
    .then(() => undefined);
}

/** Waits for this process's pending commits, so a read sees every assessment already answered. */
export async function readAfterWrites(store: ScannerStore): Promise<void> {
  await store.root.committed;
}

/** The organisation's newest `limit` history lines, newest first. */
export function listHistory(store: ScannerStore, orgId: string, limit: number): HistoryItem[] {
  const out: HistoryItem[] = [];
  for (const { value } of store.history.getRange({ start: [orgId, Number.MAX_SAFE_INTEGER], end: [orgId, -1], reverse: true, limit })) out.push(value);
  return out;
}

/** One recorded Assessment of the organisation; undefined when absent or another organisation's. */
export function getScan(store: ScannerStore, orgId: string, scanId: string): Assessment | undefined {
  const record = store.scans.get(scanId);
  return record?.orgId === orgId ? record.assessment : undefined;
}

export function scanCount(store: ScannerStore, orgId: string): number {
  return store.counters.get([orgId, 'scans']) ?? 0;
}
