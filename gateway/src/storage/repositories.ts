import type { Plan } from '../identity/tenants/plans.js';
import type { TenantRecord } from '../identity/tenants/tenant-store.js';
import type { PlanSet } from '../identity/tenants/plan-change.js';
import type { CreatedToken, NewToken, RotateOutcome, TokenRecord } from '../identity/auth/token-store.js';
import type { CompileCandidate, PolicyPage } from '../policy/policy-store.js';
import type { PolicyCreate, PolicyPatch } from '../policy/validate-policy.js';
import type { PolicyRecord } from '../policy/policy-record.js';
import type { NewUser } from '../identity/users/user-store.js';
import type { UserRecord } from '../identity/users/user-record.js';
import type { SessionRecord } from '../identity/sessions/session-store.js';

/*
 * One small interface per stored capability, each with two implementations: LMDB (the embedded default and a
 * sidecar's local copy) and PostgreSQL (the fleet's control plane, gateway/src/fleet/postgres/). One conformance suite
 * (gateway/test/storage-conformance/) runs against both.
 *
 * The contract both keep:
 * - Reads are synchronous and served from local state (LMDB's memory map; for PostgreSQL, a mirror of these small
 *   tables kept current by LISTEN/NOTIFY), so authentication and policy lookups never wait on a network.
 * - A write is durable when its promise resolves, and from then on every read of the same process sees it; other
 *   processes see it once their mirror hears of it (LMDB: at once; PostgreSQL: within the notification's delay).
 * - A write that cannot happen (an id taken, a policy set that does not compile) changes nothing.
 */

export interface TenantRepository {
  get(id: string): TenantRecord | undefined;
  list(): TenantRecord[];
  /** Undefined when the id is taken; throws RangeError on an invalid id. */
  create(id: string, plan: Plan, name?: string): Promise<TenantRecord | undefined>;
  /**
   * Undefined when there is no such tenant. A change (`by`: who made it) is kept on the record as `plan_changed`; the
   * same plan again changes nothing and answers `change: null`.
   */
  setPlan(id: string, plan: Plan, by: string): Promise<PlanSet | undefined>;
}

export interface TokenRepository {
  create(opts: NewToken): Promise<CreatedToken>;
  /** The record of a presented token (by its SHA-256); undefined when unknown. */
  findByToken(token: string): TokenRecord | undefined;
  /** The record stored under a token's SHA-256 (hex). */
  findByHash(hash: string): TokenRecord | undefined;
  get(id: string): TokenRecord | undefined;
  /** The SHA-256 (hex) a token id is stored under (what a fleet bundle carries); undefined when unknown. */
  hashOf(id: string): string | undefined;
  /** Oldest first; every tenant's when no tenant is given. */
  list(tenantId?: string): TokenRecord[];
  rotate(id: string, expiresInDays: number, graceMs: number): Promise<RotateOutcome>;
  /** False when there is no token with that id (in that tenant, when given). */
  revoke(id: string, tenantId?: string): Promise<boolean>;
}

export interface PolicyRepository {
  get(tenantId: string, id: string): PolicyRecord | undefined;
  /** Every policy of the tenant, in creation (id) order. */
  all(tenantId: string): PolicyRecord[];
  page(tenantId: string, limit: number, cursor: string | null, enabled: boolean | null): PolicyPage;
  /** The tenant's policy_version: bumped by every change, in the change's own transaction. */
  version(tenantId: string): number;
  create<T>(tenantId: string, input: PolicyCreate, compile: CompileCandidate<T>): Promise<{ record: PolicyRecord; compiled: T }>;
  update<T>(tenantId: string, current: PolicyRecord, patch: PolicyPatch, compile: CompileCandidate<T>): Promise<{ record: PolicyRecord; compiled: T }>;
  /** null when there was no such policy (nothing changed). */
  remove<T>(tenantId: string, id: string, compile: CompileCandidate<T>): Promise<T | null>;
  applyPack<T>(
    tenantId: string,
    items: readonly { key: string; input: PolicyCreate }[],
    compile: CompileCandidate<T>,
  ): Promise<{ created: PolicyRecord[]; existing: PolicyRecord[]; compiled: T | null }>;
}

export interface UserRepository {
  get(id: string): UserRecord | undefined;
  byEmail(email: string): UserRecord | undefined;
  bySubject(iss: string, sub: string): UserRecord | undefined;
  /** The tenant's users, oldest first. */
  list(tenantId: string): UserRecord[];
  /** Undefined when the e-mail (or the provider subject) is already taken. */
  create(u: NewUser): Promise<UserRecord | undefined>;
  disable(tenantId: string, id: string): Promise<UserRecord | undefined>;
}

export interface SessionRepository {
  open(tenantId: string, userId: string, method: SessionRecord['method']): Promise<{ token: string; record: SessionRecord }>;
  /** Undefined when malformed or unknown (the checksum is checked before any read). */
  find(token: string): SessionRecord | undefined;
  revoke(token: string): Promise<boolean>;
  /**
   * Deletes up to `limit` sessions that expired before `before` (revoked or not) and says how many went; a caller
   * loops until fewer than `limit` go. A pruned session's token then reads as unknown.
   */
  pruneExpired(before: Date, limit: number): Promise<number>;
}

/** The five together: what the governance API and the authentication service read and write. */
export interface Repositories {
  readonly tenants: TenantRepository;
  readonly tokens: TokenRepository;
  readonly policies: PolicyRepository;
  readonly users: UserRepository;
  readonly sessions: SessionRepository;
}

/** A sidecar's credential at the control plane (`adu_sct_…`): only its SHA-256 is stored. */
export interface SidecarTokenRecord {
  id: string;
  name: string;
  /** The tenants whose bundle and ledger the sidecar may take and ship; null = every tenant. */
  tenants: string[] | null;
  created_at: string;
  revoked_at: string | null;
  last4: string;
  /**
   * Set on a token made by `aduana sidecar-token rotate`: the id of the first token of its line. The ledger chains a
   * sidecar opens are bound to that id, so a rotated token keeps shipping them (docs/fleet.md, "Shipping the ledger").
   */
  chain_owner?: string;
  /** Set on a rotated token: its successor's id. */
  rotated_to?: string;
}

export type SidecarTokenRotation = { kind: 'rotated'; token: string; record: SidecarTokenRecord } | { kind: 'not_found' } | { kind: 'already_rotated' };

export interface SidecarTokenRepository {
  create(name: string, tenants: string[] | null): Promise<{ token: string; record: SidecarTokenRecord }>;
  findByHash(hash: string): SidecarTokenRecord | undefined;
  list(): SidecarTokenRecord[];
  /** False when there is no such token. */
  revoke(id: string): Promise<boolean>;
  /**
   * A successor with the token's name and tenants that continues its ledger chains; the token itself is revoked at
   * once (a revoked token may be rotated: that is how a leaked one is replaced). Once per token.
   */
  rotate(id: string): Promise<SidecarTokenRotation>;
}
