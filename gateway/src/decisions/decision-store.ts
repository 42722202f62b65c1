import type { GatewayStore } from '../storage/gateway-store.js';
import type { Verdict } from '../policy/types.js';
import type { Triggered } from '../policy/evaluation.js';

export type Resolution = 'APPROVED' | 'REJECTED';

/** A recorded decision (spec "Audit decision record", plus what an auditor needs to see why). */
export interface DecisionRecord {
  decision_id: string;
  tenant_id: string;
  agent_id: string;
  execution_status: Verdict;
  risk_score: number;
  event_type: string;
  trace_id: string;
  created_at: string;
  rule: string;
  policy_version: string;
  policies_evaluated: number;
  triggered: Triggered[];
  resolution: { status: Resolution; note: string; resolved_by: string; resolved_at: string } | null;
}

/**
 * Decisions under [tenant id, seq] (seq per tenant, so a reverse range is "newest first" for one tenant only), and
 * decision id -> key. Writes are not awaited on the request path: lmdb-js commits them in its next batched
 * transaction (group commit), and close() flushes.
 */
export class DecisionStore {
  readonly #seq = new Map<string, number>();

  constructor(private readonly store: GatewayStore) {}

  #nextSeq(tenantId: string): number {
    let seq = this.#seq.get(tenantId);
    if (seq === undefined) {
      seq = 0;
      for (const key of this.store.decisions.getKeys({ start: [tenantId, Infinity], end: [tenantId], reverse: true, limit: 1 })) {
        seq = (key as [string, number])[1];
      }
    }
    this.#seq.set(tenantId, ++seq);
    return seq;
  }

  record(rec: DecisionRecord): Promise<boolean> {
    const seq = this.#nextSeq(rec.tenant_id);
    const key = [rec.tenant_id, seq];
    void this.store.decisionIds.put(rec.decision_id, key);
    return this.store.decisions.put(key, rec);
  }

  recent(tenantId: string, limit: number): DecisionRecord[] {
    const out: DecisionRecord[] = [];
    for (const { value } of this.store.decisions.getRange({ start: [tenantId, Infinity], end: [tenantId], reverse: true, limit })) {
      out.push(value as DecisionRecord);
    }
    return out;
  }

  get(tenantId: string, id: string): DecisionRecord | undefined {
    const key = this.store.decisionIds.get(id) as [string, number] | undefined;
    if (!key || key[0] !== tenantId) return undefined;
    return this.store.decisions.get(key) as DecisionRecord | undefined;
  }

  async resolve(tenantId: string, id: string, resolution: NonNullable<DecisionRecord['resolution']>): Promise<DecisionRecord | undefined> {
    const key = this.store.decisionIds.get(id) as [string, number] | undefined;
    if (!key || key[0] !== tenantId) return undefined;
    let out: DecisionRecord | undefined;
    await this.store.root.transaction(() => {
      const cur = this.store.decisions.get(key) as DecisionRecord | undefined;
      if (!cur) return;
      out = { ...cur, resolution };
      this.store.decisions.put(key, out);
    });
    return out;
  }
}
