import type { LedgerEntry, EventsLedger, InclusionProof } from '../../ledger/index.js';
import { LedgerError } from '../../ledger/index.js';
import type { AnchoredCheckpoint, LedgerPublicKey } from '../../ledger/merkle/checkpoint.js';
import { encodeCursor } from '../../ledger/log/cursor.js';
import type { DecisionRecord } from '../../governance/decisions/decision-store.js';

/** A decision's place in the tenant's chain: its entry and, once a signed checkpoint covers it, its inclusion proof. */
export interface DecisionLedgerView {
  /** null when the entry is not found (pruned by retention, or beyond the search bound). */
  entry: LedgerEntry | null;
  /** Why `entry` is null, for the page. */
  missing: string;
  checkpoint: AnchoredCheckpoint | null;
  /** Against `checkpoint` (its tree size), or null when no checkpoint covers the entry yet. */
  proof: InclusionProof | null;
  publicKey: LedgerPublicKey;
  /** At a control plane: the shipped chain holding the entry (`<instance id>/<tenant id>`), naming the sidecar. */
  chainId?: string;
}

/** Entries of the decision's agent and event type read at most, from where its time puts it. */
export const ENTRY_SEARCH_LIMIT = 5_000;
/**
 * An entry is chained when its call ends (a proxied or MCP call after its answer), so it can follow its decision's time
 * by as long as a call lasts: the search starts after entries this much newer.
 */
const CALL_SLACK_MS = 15 * 60_000;
const PAGE = 500;

/**
 * Finds the ledger entry of a decision without an index of its own (nothing is added to the request path): entries are
 * indexed by agent and event type (the decision's), and the chain is in time order, so a binary search on the chain's
 * times finds where to start, and a descending walk of that agent's entries of that type finds the one whose decision
 * id is this one.
 */
export function findDecisionEntry(ledger: EventsLedger, d: DecisionRecord): LedgerEntry | null {
  const tenantId = d.tenant_id;
  const size = ledger.head(tenantId).size;
  if (size === 0) return null;
  const after = Date.parse(d.created_at) + CALL_SLACK_MS;
  // Smallest seq whose time is past `after` (times are near-monotonic in seq; the slack absorbs the rest).
  let lo = Math.max(1, ledger.prunedThrough(tenantId) + 1);
  let hi = size + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const e = ledger.get(tenantId, mid);
    if (e && Date.parse(e.created_at) > after) hi = mid;
    else lo = mid + 1;
  }
  let cursor: string | null = lo <= size ? encodeCursor('desc', lo + 1) : null;
  let read = 0;
  while (read < ENTRY_SEARCH_LIMIT) {
    const page = ledger.list(tenantId, { limit: PAGE, order: 'desc', agentId: d.agent_id, eventType: d.event_type, cursor });
    for (const e of page.events) {
      if (e.decision?.['decision_id'] === d.decision_id) return e;
    }
    read += page.events.length;
    if (page.cursor === null) return null;
    cursor = page.cursor;
  }
  return null;
}

/** The entry, the latest signed checkpoint and the entry's inclusion proof against it (the API's GET /v1/events/proofs/inclusion). */
export function decisionLedgerView(ledger: EventsLedger, d: DecisionRecord): DecisionLedgerView {
  let entry: LedgerEntry | null = null;
  let missing = '';
  try {
    entry = findDecisionEntry(ledger, d);
    if (!entry) missing = `not found among the ${ENTRY_SEARCH_LIMIT} entries of this agent and event type nearest the decision's time`;
  } catch (err) {
    if (!(err instanceof LedgerError)) throw err;
    missing = err.code === 'pruned' ? 'removed by ledger retention (a signed checkpoint covered it and it was exported)' : err.message;
  }
  return entryLedgerView(ledger, d.tenant_id, entry, missing);
}

/** An entry (the decision page's, or the ledger browser's) with the latest signed checkpoint and its proof against it. */
export function entryLedgerView(ledger: EventsLedger, tenantId: string, entry: LedgerEntry | null, missing: string): DecisionLedgerView {
  const latest = ledger.latestCheckpoint(tenantId);
  const anchor = latest ? ledger.anchorOf(tenantId, latest.tree_size) : null;
  const checkpoint: AnchoredCheckpoint | null = latest ? (anchor ? { ...latest, anchor } : latest) : null;
  const proof = entry && checkpoint && checkpoint.tree_size >= entry.seq ? ledger.inclusionProof(tenantId, entry.seq, checkpoint.tree_size) : null;
  return { entry, missing, checkpoint, proof, publicKey: ledger.publicKey };
}
