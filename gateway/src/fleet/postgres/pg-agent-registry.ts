import type pg from 'pg';
import type { BundledAgent } from '../bundle/bundle-format.js';
import type { TableSpec } from './mirrored-table.js';
import type { TableMirror } from './table-mirror.js';

/**
 * An agent's registration as the control plane holds it: what a bundle carries, with its tenant, where it was made
 * (`control`: at the control plane; `sidecar`: first use or registration at a sidecar, reported by it) and its times
 * (Unix ms).
 */
export interface AgentRegistration extends BundledAgent {
  tenant_id: string;
  origin: 'control' | 'sidecar';
  metadata: Record<string, unknown> | null;
  created_at: number;
  updated_at: number;
}

/** A registration as a write gives it. */
export type AgentRegistrationInput = BundledAgent & { metadata?: Record<string, unknown> | null };

const RECORD = `jsonb_build_object('tenant_id', tenant_id, 'agent_id', agent_id, 'name', name, 'policy_pack', policy_pack, 'risk_budget', risk_budget, 'suspended', suspended, 'origin', origin, 'metadata', metadata, 'created_at', created_at, 'updated_at', updated_at)`;

export const AGENTS: TableSpec<AgentRegistration> = {
  table: 'agents',
  selectAll: `SELECT tenant_id || '/' || agent_id AS key, ${RECORD} AS rec FROM agents`,
  selectOne: `SELECT tenant_id || '/' || agent_id AS key, ${RECORD} AS rec FROM agents WHERE tenant_id = $1 AND agent_id = $2`,
  groupOf: (a) => a.tenant_id,
};

/**
 * Agents' registrations at the control plane (name, pack, risk budget, suspension), mirrored like the other tables;
 * runtime state (heartbeats, last seen) is in `agent_activity` (PgAgentActivity). A write bumps the fleet revision.
 */
export class PgAgentRegistry {
  constructor(
    private readonly pool: pg.Pool,
    private readonly mirror: TableMirror,
  ) {}

  get(tenantId: string, agentId: string): AgentRegistration | undefined {
    return this.mirror.table<AgentRegistration>('agents').get(`${tenantId}/${agentId}`);
  }

  /** The tenant's registrations, by agent id. */
  list(tenantId: string): AgentRegistration[] {
    return this.mirror
      .table<AgentRegistration>('agents')
      .group(tenantId)
      .sort((a, b) => (a.agent_id < b.agent_id ? -1 : a.agent_id > b.agent_id ? 1 : 0));
  }

  /** Creates or replaces a registration made at the control plane (it wins over one a sidecar reported). */
  async put(tenantId: string, agent: AgentRegistrationInput): Promise<AgentRegistration> {
    const now = Date.now();
    const { rows } = await this.pool.query<{ rec: AgentRegistration }>(
      `INSERT INTO agents (tenant_id, agent_id, name, policy_pack, risk_budget, suspended, origin, metadata, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 'control', $7, $8, $8)
       ON CONFLICT (tenant_id, agent_id) DO UPDATE SET name = EXCLUDED.name, policy_pack = EXCLUDED.policy_pack, risk_budget = EXCLUDED.risk_budget, suspended = EXCLUDED.suspended,
         origin = 'control', metadata = COALESCE(EXCLUDED.metadata, agents.metadata), updated_at = EXCLUDED.updated_at
       RETURNING ${RECORD} AS rec`,
      [tenantId, agent.agent_id, agent.name, agent.policy_pack, agent.risk_budget, agent.suspended, agent.metadata === undefined ? null : JSON.stringify(agent.metadata), now],
    );
    const rec = rows[0]?.rec as AgentRegistration;
    await this.mirror.apply('agents', `${tenantId}/${agent.agent_id}`, rec);
    return rec;
  }

  /** False when there was no such registration. */
  async remove(tenantId: string, agentId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('DELETE FROM agents WHERE tenant_id = $1 AND agent_id = $2', [tenantId, agentId]);
    if (!rowCount) return false;
    await this.mirror.apply<AgentRegistration>('agents', `${tenantId}/${agentId}`, undefined);
    return true;
  }
}
