import { GatewayError } from '../../errors.js';

/** Scopes of each role (docs/decisions.md, "Scopes"). */
export type Scope = 'runtime:read' | 'runtime:write' | 'admin:manage';
export type Role = 'admin' | 'operator' | 'viewer';

export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = Object.freeze({
  admin: Object.freeze(['runtime:read', 'runtime:write', 'admin:manage'] as const),
  operator: Object.freeze(['runtime:read', 'runtime:write'] as const),
  viewer: Object.freeze(['runtime:read'] as const),
});

export const ROLES: readonly Role[] = Object.freeze(['admin', 'operator', 'viewer']);

export function isRole(value: unknown): value is Role {
  return value === 'admin' || value === 'operator' || value === 'viewer';
}

/** Who is calling: resolved once per request from the bearer token. */
export interface Principal {
  readonly kind: 'pat' | 'session';
  /** Token id (PAT) or session id. */
  readonly id: string;
  readonly tenantId: string;
  readonly role: Role;
  readonly scopes: readonly Scope[];
  readonly userId: string;
  readonly email: string;
  /** The one agent this token may act as (its agent id is then not the caller's choice), or null: any agent. */
  readonly agentId: string | null;
}

export function hasScope(p: Principal, scope: Scope): boolean {
  return p.scopes.includes(scope);
}

/**
 * A token bound to an agent acts only as that agent: the agent id a call names (x-svc-agent-id, decide `agent_id`,
 * an event's `metadata.agent_id`) must be it, else 403 with rule `agent_binding` (docs/policies.md, "Agents and tokens").
 */
export function assertAgent(p: Principal, agentId: string): void {
  if (p.agentId !== null && p.agentId !== agentId) {
    throw new GatewayError('agent_mismatch', `token is bound to agent "${p.agentId}"; this call names "${agentId.slice(0, 256)}"`, 'agent_binding');
  }
}
