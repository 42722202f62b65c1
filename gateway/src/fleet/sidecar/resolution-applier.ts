import type { Logger } from '@aduana/shared';
import type { DecisionRecord, DecisionStore } from '../../governance/decisions/decision-store.js';
import type { BundledResolution } from '../bundle/bundle-format.js';

/**
 * Applies the control plane's resolutions of held decisions that this sidecar made (docs/fleet.md, "Agents and
 * decisions"): a bundle's resolution whose chain is this sidecar's is written to the local decision store, once (the
 * store's resolve checks "not yet resolved" in its write transaction), and then recorded as a `decision.resolved`
 * entry in this sidecar's own chain, which ships like any entry. A resolution already applied is skipped with one read.
 */
export class ResolutionApplier {
  /** Resolutions applied since start. */
  applied = 0;

  constructor(
    private readonly instanceId: string,
    private readonly decisions: Pick<DecisionStore, 'get' | 'resolve'>,
    private readonly recordResolution: (d: DecisionRecord) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  async apply(tenantId: string, resolutions: readonly BundledResolution[]): Promise<void> {
    const chainId = `${this.instanceId}/${tenantId}`;
    for (const r of resolutions) {
      if (r.chain_id !== chainId) continue;
      const cur = this.decisions.get(tenantId, r.decision_id);
      if (!cur || cur.resolution) continue;
      const out = await this.decisions.resolve(tenantId, r.decision_id, r.resolution);
      if (out.kind !== 'resolved') continue;
      await this.recordResolution(out.record);
      this.applied++;
      this.logger.info({ tenantId, decisionId: r.decision_id, resolution: r.resolution.status }, 'held decision resolved at the control plane');
    }
  }
}
