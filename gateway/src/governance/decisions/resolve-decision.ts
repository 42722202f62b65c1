import { GatewayError } from '../../errors.js';
import type { Principal } from '../../identity/auth/principal.js';
import type { DecisionRecord, Resolution } from './decision-store.js';
import type { DecisionSource } from './decision-source.js';

/**
 * Resolves a held decision of the caller's tenant once and records the resolution (the API's resolve route and the
 * console's buttons both come here): 404 when there is no such decision, 409 when it is not held or already resolved.
 */
export async function resolveDecision(
  decisions: DecisionSource,
  onResolved: (d: DecisionRecord) => Promise<void>,
  by: Principal,
  id: string,
  resolution: Resolution,
  note: string,
): Promise<DecisionRecord> {
  const outcome = await decisions.resolve(by.tenantId, id, { status: resolution, note, resolved_by: by.id, resolved_at: new Date().toISOString() });
  if (outcome.kind === 'not_found') throw new GatewayError('not_found', 'decision not found');
  if (outcome.kind === 'not_held') throw new GatewayError('conflict', `decision is ${outcome.status}; only REQUIRE_APPROVAL and ESCALATE decisions are resolved`);
  if (outcome.kind === 'already_resolved') throw new GatewayError('conflict', `decision was already ${outcome.resolution}`);
  await onResolved(outcome.record);
  return outcome.record;
}
