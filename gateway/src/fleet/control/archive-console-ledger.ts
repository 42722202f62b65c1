import type { ConsoleLedger } from '../../api/console/console-ledger.js';
import type { PgLedgerArchive } from '../postgres/pg-ledger-archive.js';
import type { PgControlChain } from '../postgres/pg-control-chain.js';
import { archiveDecisionView } from './archive-decision-view.js';

/**
 * The console's ledger page at the control plane: every chain the tenant's sidecars shipped. The size is the sum of
 * their heads; a verify re-checks each chain and reports the first that breaks (by its chain id). Checkpoints are per
 * chain, so the page shows none (`GET /v1/events/checkpoints?chain_id=…` lists them). The audit trail is the control
 * plane's own chain of the tenant (pg-control-chain.ts), which the size and the verify count among the others.
 */
export function archiveConsoleLedger(archive: Pick<PgLedgerArchive, 'chains' | 'verifyTenant' | 'pool'>, controlChain: Pick<PgControlChain, 'auditTrail'>): ConsoleLedger {
  return {
    auditTrail: (tenantId, filter) => controlChain.auditTrail(tenantId, filter),
    decision: (d) => archiveDecisionView(archive.pool, d),
    async summary(tenantId) {
      const chains = await archive.chains(tenantId);
      return { size: chains.reduce((n, c) => n + c.head.size, 0), checkpoint: null };
    },
    async verify(tenantId) {
      const reports = await archive.verifyTenant(tenantId);
      const broken = reports.find((r) => !r.ok);
      return {
        ok: !broken,
        checked: reports.reduce((n, r) => n + r.checked, 0),
        prunedThrough: 0, // the control plane's archive keeps every shipped entry
        firstBrokenSeq: broken ? broken.firstBrokenSeq : null,
        reason: broken ? `chain ${broken.chain_id}: ${broken.reason ?? 'broken'}` : null,
        expectedSize: reports.reduce((n, r) => n + r.expectedSize, 0),
        checkpointsChecked: reports.reduce((n, r) => n + r.checkpointsChecked, 0),
        anchorsChecked: 0, // time-stamp tokens stay with the sidecar's own ledger; shipped checkpoints carry none
      };
    },
  };
}
