import type pg from 'pg';
import type { StoredAgent } from '../../agents/agent-state.js';
import type { ReportedAgent } from '../agents/agent-report-format.js';

/**
 * An agent as the control plane shows it: its registration joined with its activity. Never seen: last_seen and the
 * heartbeat base are the registration's time, as a registration counts as contact in the embedded gateway.
 * Missed-heartbeat counts stay with each sidecar (0 here).
 */
const STORED = `jsonb_build_object(
  'tenant_id', g.tenant_id, 'agent_id', g.agent_id, 'name', g.name, 'policy_pack', g.policy_pack, 'risk_budget', g.risk_budget,
  'suspended', g.suspended, 'last_seen', COALESCE(x.last_seen, g.created_at), 'heartbeat_base', GREATEST(COALESCE(x.heartbeat_base, 0), g.created_at),
  'missed_counted', 0, 'missed_total', 0, 'risk_score', COALESCE(x.risk_score, 0), 'reported_status', COALESCE(x.reported_status, ''),
  'metadata', COALESCE(x.metadata, g.metadata), 'created_at', g.created_at, 'updated_at', g.updated_at)`;
const FROM = 'FROM agents g LEFT JOIN agent_activity x ON x.tenant_id = g.tenant_id AND x.agent_id = g.agent_id';

const MERGE_REGISTRATIONS = `
INSERT INTO agents (tenant_id, agent_id, name, policy_pack, risk_budget, suspended, origin, metadata, created_at, updated_at)
SELECT $1, u.agent_id, u.name, u.policy_pack, u.risk_budget, false, 'sidecar', u.metadata, u.created_at, u.created_at
FROM json_to_recordset($2::json) AS u(agent_id text, name text, policy_pack text, risk_budget double precision, metadata jsonb, created_at bigint)
ON CONFLICT (tenant_id, agent_id) DO NOTHING`;

// last_seen and the heartbeat base only move forward (reports from several sidecars, or resent, arrive in any order).
const MERGE_ACTIVITY = `
INSERT INTO agent_activity (tenant_id, agent_id, last_seen, heartbeat_base, reported_status, metadata, risk_score)
SELECT $1, u.agent_id, u.last_seen, u.heartbeat_base, u.reported_status, u.metadata, u.risk_score
FROM json_to_recordset($2::json) AS u(agent_id text, last_seen bigint, heartbeat_base bigint, reported_status text, metadata jsonb, risk_score double precision)
ON CONFLICT (tenant_id, agent_id) DO UPDATE SET
  last_seen = GREATEST(agent_activity.last_seen, EXCLUDED.last_seen),
  reported_status = CASE WHEN EXCLUDED.heartbeat_base > agent_activity.heartbeat_base AND EXCLUDED.reported_status <> '' THEN EXCLUDED.reported_status ELSE agent_activity.reported_status END,
  metadata = CASE WHEN EXCLUDED.heartbeat_base > agent_activity.heartbeat_base THEN COALESCE(EXCLUDED.metadata, agent_activity.metadata) ELSE agent_activity.metadata END,
  heartbeat_base = GREATEST(agent_activity.heartbeat_base, EXCLUDED.heartbeat_base),
  risk_score = EXCLUDED.risk_score`;

/** Agents' runtime state at the control plane: what sidecars report and heartbeats sent to the control plane itself. */
export class PgAgentActivity {
  constructor(private readonly pool: pg.Pool) {}

  async get(tenantId: string, agentId: string): Promise<StoredAgent | undefined> {
    const { rows } = await this.pool.query<{ a: StoredAgent }>(`SELECT ${STORED} AS a ${FROM} WHERE g.tenant_id = $1 AND g.agent_id = $2`, [tenantId, agentId]);
    return rows[0]?.a;
  }

  async list(tenantId: string): Promise<StoredAgent[]> {
    const { rows } = await this.pool.query<{ a: StoredAgent }>(`SELECT ${STORED} AS a ${FROM} WHERE g.tenant_id = $1`, [tenantId]);
    return rows.map((r) => r.a);
  }

  /** A heartbeat (or a resume, which restarts the heartbeat clock) at `now`. */
  async heartbeat(tenantId: string, agentId: string, now: number, reported: { status?: string; metadata?: Record<string, unknown> }): Promise<void> {
    await this.pool.query(MERGE_ACTIVITY, [
      tenantId,
      JSON.stringify([{ agent_id: agentId, last_seen: now, heartbeat_base: now, reported_status: reported.status ?? '', metadata: reported.metadata ?? null, risk_score: 0 }]),
    ]);
  }

  /** Merges one tenant's part of a sidecar's report, in one transaction: first-use registrations, then activity. */
  async merge(tenantId: string, agents: readonly ReportedAgent[]): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(MERGE_REGISTRATIONS, [tenantId, JSON.stringify(agents)]);
      await client.query(MERGE_ACTIVITY, [tenantId, JSON.stringify(agents)]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }
}
