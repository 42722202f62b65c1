import type { Logger } from '@aduana/shared';
import type { GatewayStore } from '../../storage/gateway-store.js';
import type { TenantRuntimes } from '../../policy/runtime/tenant-runtime.js';
import type { PolicySet } from '../../policy/compile-policy-set.js';
import type { TenantRecord } from '../../identity/tenants/tenant-store.js';
import type { Plan } from '../../identity/tenants/plans.js';
import type { PlanChange } from '../../identity/tenants/plan-change.js';
import type { UserRecord } from '../../identity/users/user-record.js';
import type { Bundle, BundledAgent, BundledResolution } from '../bundle/bundle-format.js';
import type { AgentRegistry } from '../../agents/agent-registry.js';
import { checkBundle } from './validate-bundle.js';
import { REQUEST_LOG_DEFAULT, type StoredRequestLogSettings } from '../../request-log/request-log-settings.js';
import { NO_ROUTES, sameRoutes, type RoutesState } from '../../proxy/routing/route-store.js';
import type { TargetSpec } from '../../proxy/routing/route-spec.js';

/** What the bundle's routes meet at a sidecar: its router, and the credentials it resolves itself. */
export interface BundledRouting {
  /** The tenant's routes in the store changed (the router compiles them again). */
  changed(tenantId: string): void;
  /** Whether this sidecar can resolve a credential name for the tenant (its store or ADUANA_CREDENTIAL_*). */
  has(tenantId: string, name: string): boolean;
}

/** What a sidecar keeps of the last bundle it took (the `fleet` db, key 'bundle'). */
export interface AppliedBundle {
  revision: number;
  generated_at: string;
  applied_at: string;
}

const BUNDLE_KEY = 'bundle';

/**
 * Writes a bundle into the sidecar's own LMDB, in the named dbs the embedded gateway reads (so authentication and
 * policy lookups are the same code), and makes the running gateway use it. All or nothing (docs/fleet.md, "Failures"):
 * a bundle that is malformed or whose policies do not compile is refused whole and the previous one stays.
 */
export class BundleApplier {
  #current: AppliedBundle | null;
  /** Bundles refused (malformed, or a policy set that does not compile). */
  refused = 0;
  applied = 0;

  constructor(
    private readonly store: GatewayStore,
    private readonly runtimes: TenantRuntimes,
    private readonly agents: AgentRegistry,
    private readonly logger: Logger,
    /** Told of each tenant's resolutions of held decisions, after the bundle is in force. */
    private readonly onResolutions?: (tenantId: string, resolutions: readonly BundledResolution[]) => Promise<void>,
    /** Told of each tenant whose plan the bundle changed, after the bundle is in force (the sidecar chains it). */
    private readonly onPlanChanged?: (tenantId: string, change: PlanChange, revision: number) => Promise<void>,
    /**
     * Told of each tenant's request log settings after the bundle is in force (the default, off, when the bundle does
     * not carry them), and of each tenant dropped (null).
     */
    private readonly onRequestLog?: (tenantId: string, settings: StoredRequestLogSettings | null) => Promise<void>,
    /** The sidecar's routing: told of each tenant whose routes the bundle changed; asked which credentials it has. */
    private readonly routing?: BundledRouting,
  ) {
    this.#current = (store.fleet.get(BUNDLE_KEY) as AppliedBundle | undefined) ?? null;
  }

  /** The last bundle taken (this run or a previous one: the sidecar serves on it while the control plane is away). */
  get current(): AppliedBundle | null {
    return this.#current;
  }

  /** Applies a bundle; throws (and changes nothing) when it is refused. */
  async apply(value: unknown): Promise<AppliedBundle> {
    let bundle: Bundle;
    const compiled: PolicySet[] = [];
    try {
      bundle = checkBundle(value);
      // Compiled before anything is written: a set that cannot run never reaches LMDB.
      for (const t of bundle.tenants) {
        const stored = this.store.tenants.get(t.tenant.id) as TenantRecord | undefined;
        if (stored?.policy_version !== t.tenant.policy_version) compiled.push(this.runtimes.sets.compile(t.tenant.id, t.tenant.policy_version, t.policies));
      }
    } catch (err) {
      this.refused++;
      this.logger.error({ err }, 'bundle refused; the previous one stays in force');
      throw err;
    }
    const meta: AppliedBundle = { revision: bundle.revision, generated_at: bundle.generated_at, applied_at: new Date().toISOString() };
    // The plans in force before: a tenant this sidecar already served whose plan the bundle changes is told of.
    const plans = new Map<string, Plan>();
    for (const t of bundle.tenants) {
      const stored = this.store.tenants.get(t.tenant.id) as TenantRecord | undefined;
      if (stored && stored.plan !== t.tenant.plan) plans.set(t.tenant.id, stored.plan);
    }
    const { dropped, routesChanged } = await this.#write(bundle, meta);
    this.#current = meta;
    this.applied++;
    for (const set of compiled) this.runtimes.sets.install(set);
    for (const id of dropped) this.runtimes.sets.forget(id);
    for (const t of bundle.tenants) this.runtimes.admission.refreshPlan(t.tenant.id);
    for (const t of bundle.tenants) for (const a of t.agents) await this.#applyAgent(t.tenant.id, a);
    if (this.routing) {
      for (const id of routesChanged) this.routing.changed(id);
      for (const t of bundle.tenants) if (routesChanged.includes(t.tenant.id)) this.#tellUnresolved(t.tenant.id, t.routes);
    }
    if (this.onResolutions) {
      for (const t of bundle.tenants) {
        if (!t.resolutions?.length) continue;
        // The bundle is in force whatever happens here; a resolution that failed is tried again with the next bundle.
        await this.onResolutions(t.tenant.id, t.resolutions).catch((err: unknown) => this.logger.error({ err, tenantId: t.tenant.id }, 'applying resolutions failed'));
      }
    }
    if (this.onRequestLog) {
      const settingsOf = [...bundle.tenants.map((t): [string, StoredRequestLogSettings | null] => [t.tenant.id, t.request_log ?? REQUEST_LOG_DEFAULT]), ...dropped.map((id): [string, null] => [id, null])];
      for (const [tenantId, settings] of settingsOf) {
        await this.onRequestLog(tenantId, settings).catch((err: unknown) => this.logger.error({ err, tenantId }, 'applying request log settings failed'));
      }
    }
    if (this.onPlanChanged) {
      for (const t of bundle.tenants) {
        const from = plans.get(t.tenant.id);
        if (from === undefined) continue;
        // Who: the control plane's record of its last change, when that change is the one that led here.
        const last = t.tenant.plan_changed;
        const change: PlanChange = { from, to: t.tenant.plan, by: last?.to === t.tenant.plan ? last.by : 'control-plane', at: meta.applied_at };
        await this.onPlanChanged(t.tenant.id, change, bundle.revision).catch((err: unknown) => this.logger.error({ err, tenantId: t.tenant.id }, 'chaining a plan change failed'));
      }
    }
    this.logger.info({ revision: bundle.revision, tenants: bundle.tenants.length, recompiled: compiled.length }, 'bundle applied');
    return meta;
  }

  /**
   * An agent's registration as the control plane holds it: name, pack, risk budget, suspension. Written through the
   * agent registry (its own store, after the bundle's transaction); agents that registered at this sidecar and are not
   * in the bundle stay, since registration is runtime traffic.
   */
  async #applyAgent(tenantId: string, a: BundledAgent): Promise<void> {
    const cur = this.agents.get(tenantId, a.agent_id);
    if (!cur || cur.name !== a.name || cur.policyPack !== a.policy_pack || cur.riskBudget !== a.risk_budget) {
      await this.agents.upsert(tenantId, a.agent_id, { name: a.name, policy_pack: a.policy_pack, risk_budget: a.risk_budget });
    }
    if (this.agents.get(tenantId, a.agent_id)?.suspended !== a.suspended) await this.agents.setSuspended(tenantId, a.agent_id, a.suspended);
  }

  /**
   * A route naming a credential this sidecar cannot resolve is served without it (each such attempt is recorded as
   * credential_missing): said once per change, naming the names, never a secret.
   */
  #tellUnresolved(tenantId: string, routes: RoutesState | undefined): void {
    if (!routes?.spec) return;
    const missing = new Set<string>();
    for (const target of Object.values(routes.spec.targets) as TargetSpec[]) {
      for (const name of target.credential !== undefined ? [target.credential] : (target.credentials ?? [])) if (!this.routing!.has(tenantId, name)) missing.add(name);
    }
    if (missing.size > 0) this.logger.warn({ tenantId, credentials: [...missing], routesVersion: routes.version }, 'routes name credentials this sidecar cannot resolve: set them here (aduana credential set, or ADUANA_CREDENTIAL_<NAME>)');
  }

  /**
   * One transaction: the bundle's records in, everything it no longer holds out. Returns the tenants dropped and the
   * tenants whose routes changed.
   */
  async #write(bundle: Bundle, meta: AppliedBundle): Promise<{ dropped: string[]; routesChanged: string[] }> {
    const s = this.store;
    const tenantIds = new Set(bundle.tenants.map((t) => t.tenant.id));
    const hashes = new Set<string>();
    const tokenIds = new Set<string>();
    const userKeys = new Set<string>();
    const policyKeys = new Set<string>();
    for (const t of bundle.tenants) {
      for (const { hash, record } of t.tokens) {
        hashes.add(hash);
        tokenIds.add(record.id);
      }
      for (const u of t.users) {
        for (const key of userIndexKeys(u)) userKeys.add(JSON.stringify(key));
      }
      for (const p of t.policies) policyKeys.add(JSON.stringify([t.tenant.id, p.id]));
    }
    const dropped: string[] = [];
    const routesChanged: string[] = [];
    // Tokens and users are rewritten: the credential revision moves with them, and whatever the authenticator holds
    // in memory is read again.
    await s.credentials.change(s.root, () => {
      // Keys are collected before any removal: an LMDB cursor is not walked while the same transaction deletes under it.
      for (const id of [...s.tenants.getKeys()]) {
        if (!tenantIds.has(id as string)) {
          s.tenants.remove(id);
          dropped.push(id as string);
        }
      }
      for (const hash of [...s.tokens.getKeys()]) if (!hashes.has(hash as string)) s.tokens.remove(hash);
      for (const id of [...s.tokenIds.getKeys()]) if (!tokenIds.has(id as string)) s.tokenIds.remove(id);
      for (const key of [...s.users.getKeys()]) if (!userKeys.has(JSON.stringify(key))) s.users.remove(key);
      for (const key of [...s.policies.getKeys()]) if (!policyKeys.has(JSON.stringify(key))) s.policies.remove(key);
      for (const id of [...s.routes.getKeys()]) {
        if (tenantIds.has(id as string)) continue;
        s.routes.remove(id);
        routesChanged.push(id as string);
      }
      for (const t of bundle.tenants) {
        s.tenants.put(t.tenant.id, t.tenant);
        for (const { hash, record } of t.tokens) {
          s.tokens.put(hash, record);
          s.tokenIds.put(record.id, hash);
        }
        for (const u of t.users) {
          const rec: UserRecord = { ...u, password: null };
          s.users.put(['id', u.id], rec);
          s.users.put(['email', u.email], u.id);
          if (u.oidc) s.users.put(['oidc', u.oidc.iss, u.oidc.sub], u.id);
        }
        for (const p of t.policies) s.policies.put([t.tenant.id, p.id], p);
        const routes = t.routes ?? NO_ROUTES;
        if (!sameRoutes((s.routes.get(t.tenant.id) as RoutesState | undefined) ?? NO_ROUTES, routes)) {
          if (routes.version === 0) s.routes.remove(t.tenant.id);
          else s.routes.put(t.tenant.id, routes);
          routesChanged.push(t.tenant.id);
        }
      }
      s.fleet.put(BUNDLE_KEY, meta);
    });
    return { dropped, routesChanged };
  }
}

/** The keys a user is stored under (its record and its unique indexes), as the user store writes them. */
function userIndexKeys(u: Pick<UserRecord, 'id' | 'email' | 'oidc'>): unknown[][] {
  const keys: unknown[][] = [
    ['id', u.id],
    ['email', u.email],
  ];
  if (u.oidc) keys.push(['oidc', u.oidc.iss, u.oidc.sub]);
  return keys;
}
