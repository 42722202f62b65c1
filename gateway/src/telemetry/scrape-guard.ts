import { bearerToken, type AccessControl } from '../identity/auth/authenticate.js';
import type { RequestContext } from '../http/request-context.js';
import { checkPat, type AuthGuard } from '../http/route-guards.js';
import { EVERY_TENANT, type ScrapeScope } from './prometheus-metrics.js';
import type { ScrapeCredential } from './scrape-credential.js';

/**
 * The `scrape` route's guard (GET /v1/telemetry/metrics, docs/telemetry.md "Prometheus"), given to the API's server by
 * whoever builds it: the operator's scrape credential, which is not a PAT; or else a tenant's token, as on every
 * authenticated route (runtime:read, the plan, the tenant parameter), which sees its own series.
 */
export function scrapeGuard(credential: ScrapeCredential | null, access: AccessControl): AuthGuard {
  return {
    check(ctx) {
      if (credential !== null && credential.matches(bearerToken(ctx.authorization))) return;
      checkPat(access, ctx, 'runtime:read');
    },
  };
}

/** Whose series a request the `scrape` guard admitted may read: its token's tenant's, or (the credential) all. */
export function scrapeScope(ctx: RequestContext): ScrapeScope {
  return ctx.principal === null ? EVERY_TENANT : ctx.principal.tenantId;
}
