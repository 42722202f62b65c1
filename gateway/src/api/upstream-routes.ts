import { GatewayError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import { queryTenant } from '../http/list-params.js';
import { actorOf, type RecordAdminAction } from '../governance/admin-actions.js';
import type { Principal } from '../identity/auth/principal.js';
import type { RouteChange, RouteRepository, RoutesState } from '../proxy/routing/route-store.js';
import { validateRoutes, type CredentialNames } from '../proxy/routing/route-validation.js';

export interface UpstreamRouteDeps {
  readonly routes: RouteRepository;
  /** Whether a tenant has a provider credential of a name: a route naming one it has not is refused. */
  readonly credentialNames: CredentialNames;
  readonly onAdminAction: RecordAdminAction;
}

/** `GET /v1/routes`' answer, and every change's: the routes (null: none, the default route) with their version. */
export function routesView(s: RoutesState) {
  return { version: s.version, routes: s.spec, updated_at: s.updated_at, updated_by: s.updated_by };
}

/** What the ledger's before/after digests cover: the routes and their version, not who changed them; null: none. */
function digestView(s: RoutesState) {
  return s.spec === null ? null : { version: s.version, routes: s.spec };
}

/**
 * Replaces a tenant's routes with a body, validated whole (a 400 naming the first field wrong, nothing changed), the
 * change chained as `routes.updated` by `by`. The API's `PUT` and the console's editor both save through here.
 */
export async function replaceRoutes(deps: UpstreamRouteDeps, tenantId: string, body: unknown, by: Pick<Principal, 'id' | 'userId'>, traceId: string): Promise<RouteChange> {
  const spec = validateRoutes(body, tenantId, deps.credentialNames);
  const actor = actorOf(by);
  return deps.routes.put(tenantId, spec, actor.by, (c) =>
    deps.onAdminAction(tenantId, { actor, action: 'routes.updated', target: 'routes', before: digestView(c.before), after: digestView(c.after) }, traceId),
  );
}

/** Removes a tenant's routes (back to the default route), chained as `routes.deleted`; 404 when it has none. */
export async function removeRoutes(deps: UpstreamRouteDeps, tenantId: string, by: Pick<Principal, 'id' | 'userId'>, traceId: string): Promise<RouteChange> {
  const actor = actorOf(by);
  const change = await deps.routes.delete(tenantId, actor.by, (c) =>
    deps.onAdminAction(tenantId, { actor, action: 'routes.deleted', target: 'routes', before: digestView(c.before), after: null }, traceId),
  );
  if (change === null) throw new GatewayError('not_found', 'this tenant has no routes: its calls take the default route');
  return change;
}

/**
 * The caller's tenant's routes (docs/routing.md, "Routes"): every role reads them (they name credentials, never hold
 * them); an admin replaces them whole (`PUT`, refused whole with a 400 naming the field) or removes them (`DELETE`,
 * back to the default route). Each change bumps the version and is chained in the tenant's ledger; the same routes
 * sent again change nothing and chain nothing.
 */
export function registerUpstreamRoutes(server: HttpServer, deps: UpstreamRouteDeps): void {
  const { routes } = deps;

  server.route('get', '/v1/routes', { auth: 'pat', scope: 'runtime:read', body: 'none' }, (ctx) => {
    queryTenant(ctx);
    return { status: 200, body: routesView(routes.state(ctx.auth.tenantId)) };
  });

  server.route('put', '/v1/routes', { auth: 'pat', scope: 'admin:manage', body: 'json' }, async (ctx) => {
    queryTenant(ctx);
    const change = await replaceRoutes(deps, ctx.auth.tenantId, ctx.body, ctx.auth, ctx.trace.traceId);
    return { status: 200, body: routesView(change.after) };
  });

  server.route('delete', '/v1/routes', { auth: 'pat', scope: 'admin:manage', body: 'none' }, async (ctx) => {
    queryTenant(ctx);
    const change = await removeRoutes(deps, ctx.auth.tenantId, ctx.auth, ctx.trace.traceId);
    return { status: 200, body: routesView(change.after) };
  });
}
