import type { PackName } from '../policy/packs.js';

/** Agent statuses (docs/agents.md, "Statuses"). */
export const AGENT_STATUSES = ['ACTIVE', 'STALE', 'SUSPENDED'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** What LMDB keeps of an agent under [tenant id, agent id]. Times are Unix milliseconds. */
export interface StoredAgent {
  tenant_id: string;
  agent_id: string;
  name: string;
  policy_pack: PackName | null;
  risk_budget: number | null;
  suspended: boolean;
  last_seen: number;
  heartbeat_base: number;
  missed_counted: number;
  missed_total: number;
  risk_score: number;
  reported_status: string;
  metadata: Record<string, unknown> | null;
  created_at: number;
  updated_at: number;
}

/**
 * One agent in memory (the request path reads only this): every field declared and initialised here, so V8 keeps one
 * shape. `heartbeatBase` is the last heartbeat, or the registration or resume when none came since.
 */
export class AgentState {
  name = '';
  policyPack: PackName | null = null;
  riskBudget: number | null = null;
  suspended = false;
  lastSeen = 0;
  heartbeatBase = 0;
  /** Missed intervals since `heartbeatBase` already counted in heartbeat.missed_count (never counted twice). */
  missedCounted = 0;
  missedTotal = 0;
  riskScore = 0;
  reportedStatus = '';
  metadata: Record<string, unknown> | null = null;
  createdAt = 0;
  updatedAt = 0;
  /** Changed since the last flush (queued once in the registry's dirty list). */
  dirty = false;

  constructor(
    readonly tenantId: string,
    readonly agentId: string,
  ) {}

  static from(r: StoredAgent): AgentState {
    const s = new AgentState(r.tenant_id, r.agent_id);
    s.name = r.name;
    s.policyPack = r.policy_pack;
    s.riskBudget = r.risk_budget;
    s.suspended = r.suspended;
    s.lastSeen = r.last_seen;
    s.heartbeatBase = r.heartbeat_base;
    s.missedCounted = r.missed_counted;
    s.missedTotal = r.missed_total;
    s.riskScore = r.risk_score;
    s.reportedStatus = r.reported_status;
    s.metadata = r.metadata;
    s.createdAt = r.created_at;
    s.updatedAt = r.updated_at;
    return s;
  }

  toStored(): StoredAgent {
    return {
      tenant_id: this.tenantId,
      agent_id: this.agentId,
      name: this.name,
      policy_pack: this.policyPack,
      risk_budget: this.riskBudget,
      suspended: this.suspended,
      last_seen: this.lastSeen,
      heartbeat_base: this.heartbeatBase,
      missed_counted: this.missedCounted,
      missed_total: this.missedTotal,
      risk_score: this.riskScore,
      reported_status: this.reportedStatus,
      metadata: this.metadata,
      created_at: this.createdAt,
      updated_at: this.updatedAt,
    };
  }

  /** SUSPENDED by an admin; STALE once two intervals pass without a heartbeat; ACTIVE otherwise. */
  status(now: number, intervalMs: number): AgentStatus {
    if (this.suspended) return 'SUSPENDED';
    return now - this.heartbeatBase >= 2 * intervalMs ? 'STALE' : 'ACTIVE';
  }

  /**
   * Intervals missed since `heartbeatBase`: the heartbeat due at base + k·interval is missed once the next one is due
   * too, so the first miss is counted when the agent turns STALE (docs/agents.md, "Heartbeats").
   */
  missed(now: number, intervalMs: number): number {
    return Math.max(0, Math.floor((now - this.heartbeatBase) / intervalMs) - 1);
  }
}

/** The agent as the API shows it (GET /v1/agents/{agent_id}). */
export function agentView(s: AgentState, now: number, intervalMs: number) {
  return {
    agent_id: s.agentId,
    name: s.name,
    status: s.status(now, intervalMs),
    last_seen: s.lastSeen ? new Date(s.lastSeen).toISOString() : null,
    risk_score: Math.round(s.riskScore * 1000) / 1000,
    policy_pack: s.policyPack,
    risk_budget: s.riskBudget,
    heartbeat: {
      interval_s: intervalMs / 1000,
      next_due: new Date(s.heartbeatBase + intervalMs).toISOString(),
      missed_count: s.missedTotal,
      reported_status: s.reportedStatus || null,
      metadata: s.metadata,
    },
    created_at: new Date(s.createdAt).toISOString(),
    updated_at: new Date(s.updatedAt).toISOString(),
  };
}
export type AgentView = ReturnType<typeof agentView>;
