import type { DecisionLedgerView } from '../../api/console/decision-entry.js';
import type { LedgerEntry } from '../../ledger/index.js';
import type { DecisionRecord } from '../../governance/decisions/decision-store.js';
import { archiveInclusionProof, tenantChain } from '../postgres/pg-archive-reads.js';
import type { Queryable } from '../postgres/stored-subtrees.js';

/**
 * The decision page's ledger section at the control plane: the decision's entry in the chain its sidecar shipped
 * (found by the archive's decision id index), that chain's latest checkpoint (signed by the sidecar's key, pinned to
 * the chain) and the entry's inclusion proof against it, computed from the stored subtree roots as
 * `GET /v1/events/proofs/inclusion` does. A decision is listed here only once its entry is shipped, so it is found;
 * null otherwise (the page then points at the ledger page).
 */
export async function archiveDecisionView(db: Queryable, d: DecisionRecord): Promise<DecisionLedgerView | null> {
  const { rows } = await db.query<{ chain_id: string; seq: string; hash: string; entry: string }>(
    `SELECT chain_id, seq, encode(hash, 'hex') AS hash, entry FROM ledger_entries
     WHERE tenant_id = $1 AND decision_id = $2 AND event_type = $3 ORDER BY chain_id, seq LIMIT 1`,
    [d.tenant_id, d.decision_id, d.event_type],
  );
  const row = rows[0];
  if (!row) return null;
  const chain = await tenantChain(db, d.tenant_id, row.chain_id);
  if (chain.public_key === null) return null; // the control plane's own chain holds no decision
  const entry: LedgerEntry = { ...(JSON.parse(row.entry) as Omit<LedgerEntry, 'hash'>), hash: row.hash };
  const latest = await db.query<{ checkpoint: DecisionLedgerView['checkpoint'] }>(
    'SELECT checkpoint FROM ledger_checkpoints WHERE chain_id = $1 ORDER BY tree_size DESC LIMIT 1',
    [chain.chain_id],
  );
  const checkpoint = latest.rows[0]?.checkpoint ?? null;
  const proof = checkpoint && checkpoint.tree_size >= entry.seq ? await archiveInclusionProof(db, chain, entry.seq, checkpoint.tree_size) : null;
  return { entry, missing: '', checkpoint, proof, publicKey: chain.public_key, chainId: row.chain_id };
}
