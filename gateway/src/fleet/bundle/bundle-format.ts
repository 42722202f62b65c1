import type { TenantRecord } from '../../identity/tenants/tenant-store.js';
import type { TokenRecord } from '../../identity/auth/token-store.js';
import type { PolicyRecord } from '../../policy/policy-record.js';
import type { UserRecord } from '../../identity/users/user-record.js';
import type { StoredAgent } from '../../agents/agent-state.js';
import type { StoredRequestLogSettings } from '../../request-log/request-log-settings.js';
import type { RoutesState } from '../../proxy/routing/route-store.js';

/**
 * What a sidecar takes from the control plane (docs/fleet.md, "The bundle"): for each tenant it serves, the tenant,
 * its tokens (by SHA-256: a sidecar never holds a token itself), its users (without password hashes: a sidecar serves
 * no logins), its policies, its agents' registrations and its routes. Versioned by `revision`, which the control plane bumps on
 * every change to any of them; the HTTP ETag is `"<revision>"`.
 */
export interface Bundle {
  format: typeof BUNDLE_FORMAT;
  revision: number;
  generated_at: string;
  tenants: TenantBundle[];
}

export const BUNDLE_FORMAT = 'aduana-bundle/1';

export interface TenantBundle {
  tenant: TenantRecord;
  tokens: { hash: string; record: TokenRecord }[];
  users: BundledUser[];
  policies: PolicyRecord[];
  agents: BundledAgent[];
  /**
   * Held decisions resolved at the control plane recently (FLEET_BUNDLE_RESOLUTIONS_WINDOW_S, at most
   * FLEET_BUNDLE_RESOLUTIONS_MAX per tenant, newest first): the sidecar whose chain made the decision applies it once.
   * Absent from bundles of control planes that do not resolve decisions.
   */
  resolutions?: BundledResolution[];
  /**
   * The tenant's request log settings, set at the control plane: the sidecar samples with its own REQUEST_LOG_KEY and
   * keeps the samples (docs/console.md, "Request log"). Absent from bundles of control planes that do not carry them:
   * the log is then off at the sidecar.
   */
  request_log?: StoredRequestLogSettings;
  /**
   * The tenant's routes and their version, set at the control plane (docs/routing.md, "Routes in a fleet"): they name
   * credentials, which each sidecar resolves itself (its store or ADUANA_CREDENTIAL_*); no secret is ever carried.
   * Absent when the tenant never had routes, or from bundles of control planes that do not carry them: none then.
   */
  routes?: RoutesState;
}

/** A resolution made at the control plane, for the sidecar whose chain (`<instance id>/<tenant id>`) holds the decision. */
export interface BundledResolution {
  decision_id: string;
  chain_id: string;
  resolution: { status: 'APPROVED' | 'REJECTED'; note: string; resolved_by: string; resolved_at: string };
}

/** A user as a sidecar needs it: who a token or session belongs to, and whether it is disabled. */
export type BundledUser = Omit<UserRecord, 'password'>;

/** An agent's registration as the control plane holds it (runtime state: heartbeats, risk, stays per sidecar). */
export type BundledAgent = Pick<StoredAgent, 'agent_id' | 'name' | 'policy_pack' | 'risk_budget' | 'suspended'>;
