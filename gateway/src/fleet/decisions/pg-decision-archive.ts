import type pg from 'pg';
import type { DecisionSource } from '../../decisions/decision-source.js';
import type { DecisionRecord, ResolveOutcome } from '../../decisions/decision-store.js';
import type { Triggered } from '../../policy/evaluation.js';
import { isHeld, type Verdict } from '../../policy/verdict.js';

/** The part of a shipped ledger entry a decision is read from (audit-trail's entry shape). */
interface DecisionEntry {
  created_at: string;
  event_type: string;
  metadata: { agent_id?: unknown; trace_id?: unknown };
  decision: {
    decision_id: string;
    execution_status: Verdict;
    risk_score: number;
    rule: string;
    policy_version: string;
    policies_evaluated: number;
    triggered: { policy_id: string; type: Triggered['type']; action: Triggered['action']; risk: number }[];
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

  async recent(tenantId: string, limit: number): Promise<DecisionRecord[]> {
    const { rows } = await this.pool.query<Row>(`${SELECT} ORDER BY e.decision_id DESC LIMIT $2`, [tenantId, limit]);
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

function toRecord(tenantId: string, r: Row): DecisionRecord {
  const e = JSON.parse(r.entry) as DecisionEntry;
  const d = e.decision;
  return {
    decision_id: d.decision_id,
    tenant_id: tenantId,
    agent_id: typeof e.metadata.agent_id === 'string' ? e.metadata.agent_id : '',
    execution_status: d.execution_status,
    risk_score: d.risk_score,
    event_type: e.event_type,
    trace_id: typeof e.metadata.trace_id === 'string' ? e.metadata.trace_id : '',
    created_at: e.created_at,
    rule: d.rule,
    policy_version: d.policy_version,
    policies_evaluated: d.policies_evaluated,
    // The ledger keeps no reasons (they may quote the request): the archive's triggered policies have none.
    triggered: d.triggered.map((t) => ({ policyId: t.policy_id, type: t.type, action: t.action, risk: t.risk, reason: '' })),
    resolution:
      r.status && r.resolved_at
        ? { status: r.status, note: r.note ?? '', resolved_by: r.resolved_by ?? '', resolved_at: r.resolved_at.toISOString() }
        : null,
  };
}
