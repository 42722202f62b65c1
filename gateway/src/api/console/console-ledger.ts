import type { MaybePromise } from '../../agents/agent-directory.js';
import type { EventsLedger, LedgerEntry } from '../../ledger/index.js';
import { recordedActions } from '../policy-dry-run-routes.js';
import type { VerifyReport } from '../../ledger/lifecycle/verify-chain.js';
import type { AnchoredCheckpoint, Checkpoint } from '../../ledger/merkle/checkpoint.js';
import type { DecisionRecord } from '../../governance/decisions/decision-store.js';
import { decisionLedgerView, type DecisionLedgerView } from './decision-entry.js';
import { ledgerCheckpoints, ledgerEntries, ledgerEntryView, type EntriesPage } from './ledger-browser.js';
import { readAuditTrail, type AuditFilter, type AuditPage } from '../../governance/admin-actions.js';

/**
 * What the console's ledger page shows: the tenant's entry count and latest signed checkpoint, and a verify on
 * demand. The embedded gateway answers from its own chain; the control plane from every shipped chain of the tenant.
 */
export interface ConsoleLedger {
  summary(tenantId: string): MaybePromise<{ size: number; checkpoint: Checkpoint | null }>;
  verify(tenantId: string): Promise<VerifyReport>;
  /** A decision's entry and its inclusion proof (the decision page); absent, or null, where its chain is not held here. */
  decision?(d: DecisionRecord): MaybePromise<DecisionLedgerView | null>;
  /** The admin actions chained in the tenant's ledger (the audit trail page): the local chain, or the control plane's own. */
  auditTrail?(tenantId: string, filter: AuditFilter): MaybePromise<AuditPage>;
  /** The tenant's last recorded actions, newest first (the policy editor's dry run); absent where no chain is kept. */
  recordedActions?(tenantId: string, limit: number): LedgerEntry[];
  /** The ledger browser (ledger-browser.ts): entries newest first by cursor; absent where the chains are not held here. */
  entries?(tenantId: string, cursor: string | null, limit: number): MaybePromise<EntriesPage>;
  /** One entry with its inclusion proof against the latest signed checkpoint; null when the tenant has no such entry. */
  entry?(tenantId: string, seq: number): MaybePromise<DecisionLedgerView | null>;
  /** Signed checkpoints in tree-size order from `fromSize`, with their time-stamp status. */
  checkpoints?(tenantId: string, fromSize: number, limit: number): MaybePromise<AnchoredCheckpoint[]>;
}

/** The embedded gateway's ledger, as the console reads it. */
export function localConsoleLedger(ledger: EventsLedger): ConsoleLedger {
  return {
    summary: (tenantId) => ({ size: ledger.head(tenantId).size, checkpoint: ledger.latestCheckpoint(tenantId) }),
    verify: (tenantId) => ledger.verify(tenantId),
    decision: (d) => decisionLedgerView(ledger, d),
    auditTrail: (tenantId, filter) => readAuditTrail(ledger, tenantId, filter),
    recordedActions: (tenantId, limit) => recordedActions(ledger, tenantId, limit),
    entries: (tenantId, cursor, limit) => ledgerEntries(ledger, tenantId, cursor, limit),
    entry: (tenantId, seq) => ledgerEntryView(ledger, tenantId, seq),
    checkpoints: (tenantId, fromSize, limit) => ledgerCheckpoints(ledger, tenantId, fromSize, limit),
  };
}
