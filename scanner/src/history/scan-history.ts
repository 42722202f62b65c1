import type { Assessment } from '../assessment/assessment.js';
import type { HistoryItem, ScannerStore, ScanRecord } from '../storage/scanner-store.js';

/** The history line of an assessment (docs/scanner.md, "History"). */
export function historyItem(a: Assessment): HistoryItem {
  return { scanId: a.scanId, url: a.url, timestamp: a.timestamp, globalScore: a.globalScore, grade: a.grade, profile: a.profile };
}

/**
 * Records one assessment for an organisation in one write transaction: its JSON text by scanId, its history line
 * under [orgId, time, scanId] (so a page of history is one short range read, whatever the total), and the
 * organisation's scan count (the overview reads it instead of counting). `json` is the text the client is answered
 * (`JSON.stringify(a)`, made once by the caller): storing it copies a string, where encoding the whole Assessment
 * again cost more than the rest of the record (docs/benchmarks-history.md, "Organisations: recorded assessments and
 * history").
 *
 * The write is queued (lmdb-js batches it into the next transaction) and the caller answers without waiting for it:
 * waiting for the batch's thread hand-offs and commit cost 10-20 ms per request on a busy machine (the same section).
 * Readers of history first wait for pending commits (`readAfterWrites`), which include this one, so a client that got
 * its answer always reads its scan. Returns the commit, for callers that need it on disk (tests, benchmarks).
 */
export function recordAssessment(store: ScannerStore, orgId: string, a: Assessment, json: string): Promise<void> {
  // Taken out of the Assessment now, so the queued write holds strings only and not the whole object until it commits.
  const scanId = a.scanId;
  const at = Date.parse(a.timestamp);
  const line = historyItem(a);
  const record: ScanRecord = { orgId, json };
  return store.root
    .transaction(() => {
      void store.scans.put(scanId, record);
      void store.history.put([orgId, at, scanId], line);
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

/** One recorded Assessment of the organisation, as JSON text; undefined when absent or another organisation's. */
export function getScanJson(store: ScannerStore, orgId: string, scanId: string): string | undefined {
  const record = store.scans.get(scanId);
  if (record?.orgId !== orgId) return undefined;
  return 'json' in record ? record.json : JSON.stringify(record.assessment);
}

export function scanCount(store: ScannerStore, orgId: string): number {
  return store.counters.get([orgId, 'scans']) ?? 0;
}
