import type { LedgerInput } from '../../ledger/index.js';
import type { Plan } from './plans.js';
import type { TenantRecord } from './tenant-store.js';

/** The last change of a tenant's plan, kept on its record (a fleet's sidecars chain it from their bundle). */
export interface PlanChange {
  readonly from: Plan;
  readonly to: Plan;
  /** Who: the token or session id of the API's caller, `cli` for the command line. Never an e-mail: the ledger keeps it forever. */
  readonly by: string;
  readonly at: string;
}

/** What setting a plan did: the record as it now is, and the change, or null when the tenant already had that plan. */
export interface PlanSet {
  readonly record: TenantRecord;
  readonly change: PlanChange | null;
}

export const PLAN_CHANGED = 'tenant.plan_changed';

/** The ledger entry that records a plan change in the tenant's chain (docs/decisions.md, "Limits (plans)"). */
export function planChangedEntry(change: PlanChange, metadata: Record<string, unknown> = {}): LedgerInput {
  return { event_type: PLAN_CHANGED, payload: { by: change.by, from: change.from, to: change.to }, metadata, decision: null, created_at: change.at };
}
