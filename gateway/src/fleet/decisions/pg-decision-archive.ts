import type pg from 'pg';
import type { DecisionSource } from '../../governance/decisions/decision-source.js';
import type { DecisionRecord, ResolveOutcome } from '../../governance/decisions/decision-store.js';
import type { Triggered } from '../../policy/evaluation.js';
import { isHeld, type Verdict } from '../../policy/verdict.js';

/**
 * The part of a shipped ledger entry a decision is read from. Decisions and proxied calls (audit-trail.ts) carry every
 * field; an event ingested through POST /v1/events (event-ingestor.ts) has no `triggered` nor `policies_evaluated`
 * and keeps its trace id in `decision`. The control plane checks an entry's hash, not its shape, so every field is
 * read as possibly absent.
 */
interface DecisionEntry {
  created_at: string;
  event_type: string;
  metadata: { agent_id?: unknown; trace_id?: unknown };
  /** A proxied call's fields (call-record.ts): model, usage, cost, `priced: false` for an unpriced model. */
  payload?: { model?: unknown; usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null; cost_brl?: unknown; priced?: unknown };
  decision: {
    decision_id: string;
    execution_status?: unknown;
    risk_score?: unknown;
    rule?: unknown;
    policy_version?: unknown;
    policies_evaluated?: unknown;
    trace_id?: unknown;
    triggered?: unknown;
  };
}

interface Row {
  chain_id: string;
  entry: string;
  status: 'APPROVED' | 'REJECTED' | null;
  note: string | null;
  resolved_by: string | null;
  resolved_at: Date | null;
}

const SELECT = `
SELECT e.chain_id, e.entry, r.status, r.note, r.resolved_by, r.resolved_at
FROM ledger_entries e LEFT JOIN decision_resolutions r ON r.tenant_id = e.tenant_id AND r.decision_id = e.decision_id
WHERE e.tenant_id = $1 AND e.decision_id IS NOT NULL`;

/**
 * Decisions at the control plane (docs/fleet.md, "Agents and decisions"): the ones its sidecars shipped, read from the
 * archive's ledger entries (by `decision_id`; ids are ULIDs, so id order is time order), with their resolutions.
 * A resolve is decided by `decision_resolutions`' primary key: of concurrent resolves on any replicas exactly one
 * inserts its row.
 */
export class PgDecisionArchive implements DecisionSource {
  constructor(private readonly pool: pg.Pool) {}

  /** Newest first; with `below`, only ids that sort before it (the console's cursor pages). */
  async recent(tenantId: string, limit: number, below?: string): Promise<DecisionRecord[]> {
    const { rows } =
      below === undefined
        ? await this.pool.query<Row>(`${SELECT} ORDER BY e.decision_id DESC LIMIT $2`, [tenantId, limit])
        : await this.pool.query<Row>(`${SELECT} AND e.decision_id < $3 ORDER BY e.decision_id DESC LIMIT $2`, [tenantId, limit, below]);
    return rows.map((r) => toRecord(tenantId, r));
  }

  async get(tenantId: string, id: string): Promise<DecisionRecord | undefined> {
    const r = await this.#row(tenantId, id);
    return r ? toRecord(tenantId, r) : undefined;
  }

  async resolve(tenantId: string, id: string, resolution: NonNullable<DecisionRecord['resolution']>): Promise<ResolveOutcome> {
    const r = await this.#row(tenantId, id);
    if (!r) return { kind: 'not_found' };
    const cur = toRecord(tenantId, r);
    if (!isHeld(cur.execution_status)) return { kind: 'not_held', status: cur.execution_status };
    if (cur.resolution) return { kind: 'already_resolved', resolution: cur.resolution.status };
    const ins = await this.pool.query(
      `INSERT INTO decision_resolutions (tenant_id, decision_id, chain_id, status, note, resolved_by, resolved_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (tenant_id, decision_id) DO NOTHING`,
      [tenantId, id, r.chain_id, resolution.status, resolution.note, resolution.resolved_by, resolution.resolved_at],
    );
    if (ins.rowCount === 1) return { kind: 'resolved', record: { ...cur, resolution } };
    const won = await this.#row(tenantId, id);
    return { kind: 'already_resolved', resolution: won?.status ?? resolution.status };
  }

  async #row(tenantId: string, id: string): Promise<Row | undefined> {
    const { rows } = await this.pool.query<Row>(`${SELECT} AND e.decision_id = $2 LIMIT 1`, [tenantId, id]);
    return rows[0];
  }
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function triggeredOf(v: unknown): Triggered[] {
  if (!Array.isArray(v)) return [];
  const out: Triggered[] = [];
  for (const t of v as unknown[]) {
    if (typeof t !== 'object' || t === null) continue;
    const { policy_id, type, action, risk } = t as Record<string, unknown>;
    // The ledger keeps no reasons (they may quote the request): the archive's triggered policies have none.
    out.push({ policyId: text(policy_id), type: text(type) as Triggered['type'], action: text(action) as Triggered['action'], risk: num(risk), reason: '' });
  }
  return out;
}

function toRecord(tenantId: string, r: Row): DecisionRecord {
  const e = JSON.parse(r.entry) as DecisionEntry;
  const d = e.decision;
  const rec: DecisionRecord = {
    decision_id: d.decision_id,
    tenant_id: tenantId,
    agent_id: text(e.metadata.agent_id),
    execution_status: text(d.execution_status) as Verdict,
    risk_score: num(d.risk_score),
    event_type: e.event_type,
    trace_id: text(e.metadata.trace_id) || text(d.trace_id),
    created_at: e.created_at,
    rule: text(d.rule),
    policy_version: text(d.policy_version),
    policies_evaluated: num(d.policies_evaluated),
    triggered: triggeredOf(d.triggered),
    resolution:
      r.status && r.resolved_at
        ? { status: r.status, note: r.note ?? '', resolved_by: r.resolved_by ?? '', resolved_at: r.resolved_at.toISOString() }
        : null,
  };
  // A proxied call's model, tokens and cost, as the sidecar's own index keeps them (the console's costs and spend).
  const p = e.payload;
  if (typeof p?.cost_brl === 'number') rec.cost_brl = num(p.cost_brl);
  if (typeof p?.model === 'string' && p.usage && typeof p.usage === 'object') {
    rec.model = p.model;
    rec.prompt_tokens = num(p.usage.prompt_tokens);
    rec.completion_tokens = num(p.usage.completion_tokens);
    if (p.priced === false) rec.unpriced = true;
  }
  return rec;
}
