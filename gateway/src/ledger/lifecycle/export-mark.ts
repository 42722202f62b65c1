import type { LedgerDbs } from '../storage/store.js';

/**
 * The durable "exported through seq" mark retention waits for (docs/ledger.md, "Retention"): the size of the last
 * complete export, so no entry is pruned before a copy of it left the ledger. It only moves forward.
 */
export function exportedThrough(dbs: LedgerDbs, tenantId: string): number {
  const value = dbs.retention.get([tenantId, 'exported']);
  return typeof value === 'number' ? value : 0;
}

/** Records that an export of entries 1..size was written completely; resolves once committed. */
export async function markExported(dbs: LedgerDbs, tenantId: string, size: number): Promise<void> {
  // In one write transaction, so two exports finishing together keep the larger mark.
  await dbs.root.transaction(() => {
    if (size > exportedThrough(dbs, tenantId)) dbs.retention.put([tenantId, 'exported'], size);
  });
}
