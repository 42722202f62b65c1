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
interface Pending {
  seq: number;
  rec: DecisionRecord;
  written: Promise<boolean>;
}

export class DecisionStore {
  readonly #seq = new Map<string, number>();
  /**
   * Records queued but not yet committed, by tenant and by id: reads merge them in, so a client that reads its
   * decision right after making it finds it (read-your-writes without waiting for the disk on the request path).
   */
  readonly #pendingByTenant = new Map<string, Map<number, Pending>>();
  readonly #pendingById = new Map<string, Pending>();

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
    const tenantId = rec.tenant_id;
    const seq = this.#nextSeq(tenantId);
    const key = [tenantId, seq];
    void this.store.decisionIds.put(rec.decision_id, key);
    const written = this.store.decisions.put(key, rec);
    const p: Pending = { seq, rec, written };
    let byTenant = this.#pendingByTenant.get(tenantId);
    if (!byTenant) this.#pendingByTenant.set(tenantId, (byTenant = new Map()));
    byTenant.set(seq, p);
    this.#pendingById.set(rec.decision_id, p);
    const settle = () => {
      byTenant.delete(seq);
      if (byTenant.size === 0) this.#pendingByTenant.delete(tenantId);
      this.#pendingById.delete(rec.decision_id);
    };
    written.then(settle, settle);
    return written;
  }

  recent(tenantId: string, limit: number): DecisionRecord[] {
    const rows: { seq: number; rec: DecisionRecord }[] = [];
    for (const { key, value } of this.store.decisions.getRange({ start: [tenantId, Infinity], end: [tenantId], reverse: true, limit })) {
      rows.push({ seq: (key as [string, number])[1], rec: value as DecisionRecord });
    }
    const pending = this.#pendingByTenant.get(tenantId);
    if (pending) {
      const have = new Set(rows.map((r) => r.seq));
      for (const p of pending.values()) if (!have.has(p.seq)) rows.push({ seq: p.seq, rec: p.rec });
      rows.sort((a, b) => b.seq - a.seq);
    }
    return rows.slice(0, limit).map((r) => r.rec);
  }

  get(tenantId: string, id: string): DecisionRecord | undefined {
    const p = this.#pendingById.get(id);
    if (p) return p.rec.tenant_id === tenantId ? p.rec : undefined;
    const key = this.store.decisionIds.get(id) as [string, number] | undefined;
    if (!key || key[0] !== tenantId) return undefined;
    return this.store.decisions.get(key) as DecisionRecord | undefined;
  }

  async resolve(tenantId: string, id: string, resolution: NonNullable<DecisionRecord['resolution']>): Promise<DecisionRecord | undefined> {
    await this.#pendingById.get(id)?.written;
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
