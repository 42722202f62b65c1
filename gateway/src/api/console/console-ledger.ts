import type { MaybePromise } from '../../agents/agent-directory.js';
import type { Ledger } from '../../ledger/index.js';
import type { VerifyReport } from '../../ledger/lifecycle/verify-chain.js';
import type { Checkpoint } from '../../ledger/merkle/checkpoint.js';

/**
 * What the console's ledger page shows: the tenant's entry count and latest signed checkpoint, and a verify on
 * demand. The embedded gateway answers from its own chain; the control plane from every shipped chain of the tenant.
 */
export interface ConsoleLedger {
  summary(tenantId: string): MaybePromise<{ size: number; checkpoint: Checkpoint | null }>;
  verify(tenantId: string): Promise<VerifyReport>;
}

/** The embedded gateway's ledger, as the console reads it. */
export function localConsoleLedger(ledger: Ledger): ConsoleLedger {
  return {
    summary: (tenantId) => ({ size: ledger.head(tenantId).size, checkpoint: ledger.latestCheckpoint(tenantId) }),
    verify: (tenantId) => ledger.verify(tenantId),
  };
}
