/** Scopes of the spec's role table. */
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
}

export function hasScope(p: Principal, scope: Scope): boolean {
  return p.scopes.includes(scope);
}
