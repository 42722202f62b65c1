import type { GatewayStore } from '../../storage/gateway-store.js';
import { isoInstantMs } from '../../ledger/log/instant.js';
import { isHeld, type Verdict } from '../../policy/verdict.js';
import type { Triggered } from '../../policy/evaluation.js';

export type Resolution = 'APPROVED' | 'REJECTED';

/** What a resolve attempt found, decided inside the write transaction. */
export type ResolveOutcome =
  | { readonly kind: 'resolved'; readonly record: DecisionRecord }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'not_held'; readonly status: Verdict }
  | { readonly kind: 'already_resolved'; readonly resolution: Resolution };

/** A recorded decision (docs/decisions.md, "Audit decision record", plus what an auditor needs to see why). */
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
  /** Governance time of the call, ms (absent on records written before it was kept). */
  latency_ms?: number;
  /** Provider cost of a proxied call, BRL (absent or 0 for decide calls). */
  cost_brl?: number;
  /** A proxied call's model and reported token usage (absent for decide calls and calls without usage). */
  model?: string;
  prompt_tokens?: number;
  completion_tokens?: number;
  /** The model is in no price table: cost_brl is 0 (absent when priced). */
  unpriced?: true;
}

/**
 * A record as stored: without the ids its key already holds, `created_at` as Unix ms and `trace_id` as its 16 bytes
 * where they read back exactly (records of earlier builds carry the ids and the strings, and read as they are).
 */
type StoredDecision = Omit<DecisionRecord, 'decision_id' | 'tenant_id' | 'created_at' | 'trace_id'> & {
  decision_id?: string;
  tenant_id?: string;
  created_at: string | number;
  trace_id: string | Uint8Array;
};

const TRACE_ID = /^[0-9a-f]{32}$/;

/** Built field by field in one order: one record shape per combination of the optional fields. */
function toStored(rec: DecisionRecord): StoredDecision {
  const ms = isoInstantMs(rec.created_at);
  const out: StoredDecision = {
    agent_id: rec.agent_id,
    execution_status: rec.execution_status,
    risk_score: rec.risk_score,
    event_type: rec.event_type,
    trace_id: TRACE_ID.test(rec.trace_id) ? Buffer.from(rec.trace_id, 'hex') : rec.trace_id,
    created_at: Number.isNaN(ms) ? rec.created_at : ms,
    rule: rec.rule,
    policy_version: rec.policy_version,
    policies_evaluated: rec.policies_evaluated,
    triggered: rec.triggered,
    resolution: rec.resolution,
  };
  if (rec.latency_ms !== undefined) out.latency_ms = rec.latency_ms;
  if (rec.cost_brl !== undefined) out.cost_brl = rec.cost_brl;
  if (rec.model !== undefined) out.model = rec.model;
  if (rec.prompt_tokens !== undefined) out.prompt_tokens = rec.prompt_tokens;
  if (rec.completion_tokens !== undefined) out.completion_tokens = rec.completion_tokens;
  if (rec.unpriced) out.unpriced = true;
  return out;
}

function fromStored(value: StoredDecision, tenantId: string, id: string): DecisionRecord {
  value.decision_id ??= id;
  value.tenant_id ??= tenantId;
  if (typeof value.created_at === 'number') value.created_at = new Date(value.created_at).toISOString();
  if (typeof value.trace_id !== 'string') value.trace_id = Buffer.from(value.trace_id).toString('hex');
  return value as DecisionRecord;
}

interface Pending {
  rec: DecisionRecord;
  written: Promise<unknown>;
}

/**
 * Where decision records are written: in this thread (`localDecisionWrites`), or by the ledger's writer thread,
 * which owns every write of the decision index in the gateway (ledger/writer/).
 */
export interface DecisionWrites {
  /** Settles once the record is committed (readable by every thread). */
  write(rec: DecisionRecord): Promise<unknown>;
  resolve(tenantId: string, id: string, resolution: NonNullable<DecisionRecord['resolution']>): Promise<ResolveOutcome>;
}

export function localDecisionWrites(store: GatewayStore): DecisionWrites {
  return {
    write: (rec) => writeDecision(store, rec),
    resolve: (tenantId, id, resolution) => resolveStoredDecision(store, tenantId, id, resolution),
  };
}

/** Puts the record under [tenant, decision id]; resolves once committed. */
export function writeDecision(store: GatewayStore, rec: DecisionRecord): Promise<boolean> {
  return store.decisions.put([rec.tenant_id, rec.decision_id], toStored(rec));
}

/**
 * Resolves a held decision once. The checks (exists, held, not yet resolved) run inside the write transaction, which
 * LMDB serialises: of concurrent resolves of one decision exactly one finds it unresolved and wins.
 */
export async function resolveStoredDecision(store: GatewayStore, tenantId: string, id: string, resolution: NonNullable<DecisionRecord['resolution']>): Promise<ResolveOutcome> {
  const key = [tenantId, id];
  let out: ResolveOutcome = { kind: 'not_found' };
  await store.root.transaction(() => {
    const stored = store.decisions.get(key) as StoredDecision | undefined;
    const cur = stored === undefined ? undefined : fromStored(stored, tenantId, id);
    if (!cur) out = { kind: 'not_found' };
    else if (!isHeld(cur.execution_status)) out = { kind: 'not_held', status: cur.execution_status };
    else if (cur.resolution) out = { kind: 'already_resolved', resolution: cur.resolution.status };
    else {
      const record = { ...cur, resolution };
      store.decisions.put(key, toStored(record));
      out = { kind: 'resolved', record };
    }
  });
  return out;
}

/**
 * Decisions under [tenant id, decision id] (the value leaves out those two ids). Decision ids are ULIDs (time-ordered,
 * monotonic within a process), so a reverse range over one tenant's keys is "newest first" for that tenant only, and
 * a lookup by id is one read with the caller's tenant: one write per decision, no secondary index. Writes are not
 * awaited on the request path: lmdb-js commits them in its next batched transaction (group commit), and close()
 * flushes. In the gateway, the ledger's writer thread makes them.
 */
export class DecisionStore {
  /**
   * Records queued but not yet committed: reads merge them in, so a client that reads its decision right after
   * making it finds it (read-your-writes without waiting for the disk on the request path).
   */
  readonly #pending = new Map<string, Pending>();
  readonly #writes: DecisionWrites;

  constructor(
    private readonly store: GatewayStore,
    writes: DecisionWrites = localDecisionWrites(store),
  ) {
    this.#writes = writes;
  }

  record(rec: DecisionRecord): Promise<unknown> {
    const written = this.#writes.write(rec);
    this.#pending.set(rec.decision_id, { rec, written });
    const settle = () => this.#pending.delete(rec.decision_id);
    written.then(settle, settle);
    return written;
  }

  /** The tenant's newest decisions, newest first; with `below`, only those whose id sorts before it (a page's cursor). */
  recent(tenantId: string, limit: number, below?: string): DecisionRecord[] {
    const out: DecisionRecord[] = [];
    for (const { key, value } of this.store.decisions.getRange({ start: [tenantId, below ?? '\uffff'], end: [tenantId], reverse: true, limit: below === undefined ? limit : limit + 1 })) {
      const id = (key as [string, string])[1];
      // A reverse range includes its start key.
      if (below !== undefined && id >= below) continue;
      if (out.length < limit) out.push(fromStored(value as StoredDecision, tenantId, id));
    }
    if (this.#pending.size === 0) return out;
    const have = new Set(out.map((d) => d.decision_id));
    for (const p of this.#pending.values()) if (p.rec.tenant_id === tenantId && !have.has(p.rec.decision_id) && (below === undefined || p.rec.decision_id < below)) out.push(p.rec);
    out.sort((a, b) => (a.decision_id < b.decision_id ? 1 : a.decision_id > b.decision_id ? -1 : 0));
    return out.slice(0, limit);
  }

  get(tenantId: string, id: string): DecisionRecord | undefined {
    const p = this.#pending.get(id);
    if (p) return p.rec.tenant_id === tenantId ? p.rec : undefined;
    const value = this.store.decisions.get([tenantId, id]) as StoredDecision | undefined;
    return value === undefined ? undefined : fromStored(value, tenantId, id);
  }

  /** Resolves a held decision once (resolveStoredDecision), after its own write if that is still pending. */
  async resolve(tenantId: string, id: string, resolution: NonNullable<DecisionRecord['resolution']>): Promise<ResolveOutcome> {
    await this.#pending.get(id)?.written;
    return this.#writes.resolve(tenantId, id, resolution);
  }
}
