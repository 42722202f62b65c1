import { LedgerError, type EventsLedger, type LedgerEntry } from '../../ledger/index.js';
import { fromLedgerError } from '../../ledger/events/ledger-errors.js';
import type { AnchoredCheckpoint } from '../../ledger/merkle/checkpoint.js';
import { entryLedgerView, type DecisionLedgerView } from './decision-entry.js';

/** A page of the ledger browser: entries newest first and the ledger's opaque cursor of the next (older) page. */
export interface EntriesPage {
  entries: LedgerEntry[];
  next: string | null;
}

/** The tenant's entries, newest first: one index range of `limit` entries from the cursor (the API's GET /v1/events). */
export function ledgerEntries(ledger: EventsLedger, tenantId: string, cursor: string | null, limit: number): EntriesPage {
  try {
    const page = ledger.list(tenantId, { limit, order: 'desc', cursor });
    return { entries: page.events, next: page.cursor };
  } catch (err) {
    throw fromLedgerError(err);
  }
}

/** One of the tenant's entries with its inclusion proof against the latest signed checkpoint; null when it has none of that seq. */
export function ledgerEntryView(ledger: EventsLedger, tenantId: string, seq: number): DecisionLedgerView | null {
  let entry: LedgerEntry | undefined;
  try {
    entry = ledger.get(tenantId, seq);
  } catch (err) {
    // Removed by retention: 410, as the API answers it.
    throw err instanceof LedgerError ? fromLedgerError(err) : err;
  }
  return entry ? entryLedgerView(ledger, tenantId, entry, '') : null;
}

/** Signed checkpoints in tree-size order from `fromSize`, each with its RFC 3161 time-stamp status. */
export function ledgerCheckpoints(ledger: EventsLedger, tenantId: string, fromSize: number, limit: number): AnchoredCheckpoint[] {
  return ledger.checkpoints(tenantId, { fromSize, limit }).map((cp) => {
    const anchor = ledger.anchorOf(tenantId, cp.tree_size);
    return anchor ? { ...cp, anchor } : cp;
  });
}
