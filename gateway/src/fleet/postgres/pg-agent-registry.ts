import type pg from 'pg';
import type { BundledAgent } from '../bundle/bundle-format.js';
import type { TableSpec } from './mirrored-table.js';
import type { TableMirror } from './table-mirror.js';

/** An agent's registration as the control plane holds it: what a bundle carries, with its tenant. */
export interface AgentRegistration extends BundledAgent {
  tenant_id: string;
}

const RECORD = `jsonb_build_object('tenant_id', tenant_id, 'agent_id', agent_id, 'name', name, 'policy_pack', policy_pack, 'risk_budget', risk_budget, 'suspended', suspended)`;

export const AGENTS: TableSpec<AgentRegistration> = {
  table: 'agents',
  selectAll: `SELECT tenant_id || '/' || agent_id AS key, ${RECORD} AS rec FROM agents`,
  selectOne: `SELECT tenant_id || '/' || agent_id AS key, ${RECORD} AS rec FROM agents WHERE tenant_id = $1 AND agent_id = $2`,
  groupOf: (a) => a.tenant_id,
};

/**
 * Agents' registrations at the control plane (name, pack, risk budget, suspension), mirrored like the other tables;
 * runtime state (heartbeats, risk scores) stays with each sidecar. A write bumps the fleet revision.
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

  /** Creates or replaces a registration. */
  async put(tenantId: string, agent: BundledAgent): Promise<AgentRegistration> {
    const { rows } = await this.pool.query<{ rec: AgentRegistration }>(
      `INSERT INTO agents (tenant_id, agent_id, name, policy_pack, risk_budget, suspended) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (tenant_id, agent_id) DO UPDATE SET name = EXCLUDED.name, policy_pack = EXCLUDED.policy_pack, risk_budget = EXCLUDED.risk_budget, suspended = EXCLUDED.suspended
       RETURNING ${RECORD} AS rec`,
      [tenantId, agent.agent_id, agent.name, agent.policy_pack, agent.risk_budget, agent.suspended],
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
