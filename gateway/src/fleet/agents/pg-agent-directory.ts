import { GatewayError } from '../../errors.js';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import { pageAgents, type AgentPage, type ListQuery } from '../../agents/agent-page.js';
import type { AgentProfile } from '../../agents/agent-registry.js';
import { AgentState } from '../../agents/agent-state.js';
import type { PgAgentActivity } from '../postgres/pg-agent-activity.js';
import type { PgAgentRegistry } from '../postgres/pg-agent-registry.js';

export interface PgAgentDirectoryOptions {
  intervalMs: number;
  requireRegistered: boolean;
  maxPerTenant: number;
}

/**
 * The control plane's agents (docs/fleet.md, "Agents and decisions"): registrations in `agents` (what bundles carry),
 * activity in `agent_activity`; statuses are computed as the embedded gateway computes them.
 */
export class PgAgentDirectory implements AgentDirectory {
  constructor(
    private readonly registry: PgAgentRegistry,
    private readonly activity: PgAgentActivity,
    private readonly options: PgAgentDirectoryOptions,
  ) {}

  get intervalMs(): number {
    return this.options.intervalMs;
  }

  async get(tenantId: string, agentId: string): Promise<AgentState | undefined> {
    const a = await this.activity.get(tenantId, agentId);
    return a ? AgentState.from(a) : undefined;
  }

  async list(tenantId: string, query: ListQuery): Promise<AgentPage> {
    const all = (await this.activity.list(tenantId)).map((a) => AgentState.from(a));
    return pageAgents(all, query, Date.now(), this.options.intervalMs);
  }

  async upsert(tenantId: string, agentId: string, profile: AgentProfile, authorise?: (changesGovernance: boolean) => void): Promise<{ agent: AgentState; created: boolean }> {
    const cur = this.registry.get(tenantId, agentId);
    if (cur) {
      const changesPack = profile.policy_pack !== undefined && profile.policy_pack !== cur.policy_pack;
      const changesBudget = profile.risk_budget !== undefined && profile.risk_budget !== cur.risk_budget;
      authorise?.(changesPack || changesBudget);
    } else {
      this.#assertRoom(tenantId);
    }
    await this.registry.put(tenantId, {
      agent_id: agentId,
      name: profile.name ?? cur?.name ?? agentId,
      policy_pack: profile.policy_pack !== undefined ? profile.policy_pack : (cur?.policy_pack ?? null),
      risk_budget: profile.risk_budget !== undefined ? profile.risk_budget : (cur?.risk_budget ?? null),
      suspended: cur?.suspended ?? false,
      metadata: profile.metadata ?? null,
    });
    return { agent: await this.#must(tenantId, agentId), created: !cur };
  }

  async setSuspended(tenantId: string, agentId: string, suspended: boolean): Promise<AgentState | undefined> {
    const cur = this.registry.get(tenantId, agentId);
    if (!cur) return undefined;
    if (cur.suspended !== suspended) {
      await this.registry.put(tenantId, { ...cur, suspended });
      // Resumed: heartbeats are expected from now on, not owed for the time it was suspended.
      if (!suspended) await this.activity.heartbeat(tenantId, agentId, Date.now(), {});
    }
    return this.get(tenantId, agentId);
  }

  async heartbeat(tenantId: string, agentId: string, reported: { status?: string; metadata?: Record<string, unknown> }): Promise<AgentState> {
    if (!this.registry.get(tenantId, agentId)) {
      if (this.options.requireRegistered) throw new GatewayError('agent_unregistered', `agent "${agentId.slice(0, 256)}" is not registered`, 'agent_unregistered');
      this.#assertRoom(tenantId);
      await this.registry.put(tenantId, { agent_id: agentId, name: agentId, policy_pack: null, risk_budget: null, suspended: false });
    }
    await this.activity.heartbeat(tenantId, agentId, Date.now(), reported);
    return this.#must(tenantId, agentId);
  }

  #assertRoom(tenantId: string): void {
    const n = this.registry.list(tenantId).length;
    if (n >= this.options.maxPerTenant) throw new GatewayError('agent_limit', `this tenant has ${n} agents, the most it may register`, 'agent_limit');
  }

  async #must(tenantId: string, agentId: string): Promise<AgentState> {
    const a = await this.get(tenantId, agentId);
    if (!a) throw new GatewayError('not_found', 'agent not found');
    return a;
  }
}
