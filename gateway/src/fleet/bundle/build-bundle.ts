import type { Repositories, SidecarTokenRecord } from '../../storage/repositories.js';
import type { StoredRequestLogSettings } from '../../request-log/request-log-settings.js';
import type { RoutesState } from '../../proxy/routing/route-store.js';
import { sidecarCovers } from '../sidecar-auth.js';
import { BUNDLE_FORMAT, type Bundle, type BundledAgent, type BundledResolution, type BundledUser, type TenantBundle } from './bundle-format.js';

/** Where a bundle's agent registrations come from (the control plane's agents); none when absent. */
export type AgentProfiles = (tenantId: string) => readonly BundledAgent[];

/** The tenant's recent resolutions of held decisions (the control plane's); none when absent. */
export type RecentResolutions = (tenantId: string) => readonly BundledResolution[];

/** The tenant's request log settings (the control plane's); not carried when absent. */
export type RequestLogSettingsOf = (tenantId: string) => StoredRequestLogSettings;

/** The tenant's routes (the control plane's); not carried when absent. */
export type RoutesOf = (tenantId: string) => RoutesState;

/** What else a bundle carries, each when its control plane has it. */
export interface BundleExtras {
  readonly agentProfiles?: AgentProfiles;
  readonly resolutions?: RecentResolutions;
  readonly requestLog?: RequestLogSettingsOf;
  readonly routes?: RoutesOf;
}

/** What a bundle is built from: the reads of the repositories it carries. */
export type BundleSources = Pick<Repositories, 'tenants' | 'tokens' | 'users' | 'policies'>;

/**
 * The bundle of the tenants a sidecar token covers, at `revision`: every token by its hash (a sidecar never holds a
 * token), users without their password hashes (a sidecar serves no logins), every policy, the agents' registrations, the
 * request log settings, the routes (credential names only).
 */
export function buildBundle(repos: BundleSources, scope: SidecarTokenRecord, revision: number, extras: BundleExtras = {}): Bundle {
  const { agentProfiles, resolutions, requestLog, routes } = extras;
  const tenants: TenantBundle[] = [];
  for (const tenant of repos.tenants.list()) {
    if (!sidecarCovers(scope, tenant.id)) continue;
    const tokens: TenantBundle['tokens'] = [];
    for (const record of repos.tokens.list(tenant.id)) {
      const hash = repos.tokens.hashOf(record.id);
      if (hash) tokens.push({ hash, record });
    }
    const users = repos.users.list(tenant.id).map(withoutPassword);
    const t: TenantBundle = { tenant, tokens, users, policies: repos.policies.all(tenant.id), agents: agentProfiles ? [...agentProfiles(tenant.id)] : [] };
    if (resolutions) t.resolutions = [...resolutions(tenant.id)];
    if (requestLog) t.request_log = { ...requestLog(tenant.id) };
    const routed = routes?.(tenant.id);
    if (routed !== undefined && routed.version > 0) t.routes = routed;
    tenants.push(t);
  }
  return { format: BUNDLE_FORMAT, revision, generated_at: new Date().toISOString(), tenants };
}

function withoutPassword(u: BundledUser & { password?: unknown }): BundledUser {
  const { password: _password, ...rest } = u;
  return rest;
}
