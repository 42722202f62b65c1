import type { AgentProfile } from './agent-registry.js';
import type { AgentPage, ListQuery } from './agent-page.js';
import type { AgentState } from './agent-state.js';

/** A value now (the embedded gateway's memory) or later (the control plane's database). */
export type MaybePromise<T> = T | Promise<T>;

/**
 * What the agents routes need of wherever agents are kept: the embedded gateway's in-memory registry, or the
 * control plane's PostgreSQL (docs/fleet.md, "Agents and decisions"). Same wire format and errors either way.
 */
export interface AgentDirectory {
  readonly intervalMs: number;
  get(tenantId: string, agentId: string): MaybePromise<AgentState | undefined>;
  list(tenantId: string, query: ListQuery): MaybePromise<AgentPage>;
  upsert(tenantId: string, agentId: string, profile: AgentProfile, authorise?: (changesGovernance: boolean) => void): Promise<{ agent: AgentState; created: boolean }>;
  setSuspended(tenantId: string, agentId: string, suspended: boolean): Promise<AgentState | undefined>;
  heartbeat(tenantId: string, agentId: string, reported: { status?: string; metadata?: Record<string, unknown> }): MaybePromise<AgentState>;
}
