import type { MaybePromise } from '../../agents/agent-directory.js';
import type { DecisionRecord, ResolveOutcome } from './decision-store.js';

/**
 * What the decision routes and the console read and resolve: the embedded gateway's decision store, or at the
 * control plane the decisions its sidecars shipped (docs/fleet.md, "Agents and decisions").
 */
export interface DecisionSource {
  recent(tenantId: string, limit: number): MaybePromise<DecisionRecord[]>;
  get(tenantId: string, id: string): MaybePromise<DecisionRecord | undefined>;
  /** Resolves a held decision once; what it found decides the answer (404, 409 or the resolved record). */
  resolve(tenantId: string, id: string, resolution: NonNullable<DecisionRecord['resolution']>): Promise<ResolveOutcome>;
}
