import { parse, stringify } from 'yaml';
import { GatewayError } from '../../errors.js';
import type { HttpServer, Reply } from '../../http/server.js';
import type { RecordAdminAction } from '../../governance/admin-actions.js';
import type { CredentialStore } from '../../credentials/credential-store.js';
import type { RouteRepository, RoutesState } from '../../proxy/routing/route-store.js';
import { removeRoutes, replaceRoutes, type UpstreamRouteDeps } from '../upstream-routes.js';
import { viewerOf, type SessionViewer } from './console-session.js';
import { ADMIN_FORM, PAGE, csrfCheckedPost, htmlReply, seeOther } from './console-route-kit.js';
import { NO_ROUTES_TEXT, routesPage, type RoutesPageState, type RoutesPlace } from './pages/routes-page.js';

export interface RoutesEditorDeps {
  /** The tenant's routes: a gateway's, or the control plane's for its sidecars. */
  readonly routes: RouteRepository;
  /** The gateway's provider credentials; absent at a fleet's control plane, which keeps none. */
  readonly credentials?: CredentialStore | undefined;
  /** CONTROL_PLANE_URL set: a sidecar, which refuses every admin change (the server's route guard). */
  readonly config: { readonly controlPlaneUrl: string };
  readonly onAdminAction: RecordAdminAction;
}

/** The routes in force as the editor shows them: YAML, as `aduana routes export` writes it. */
function editorText(s: RoutesState): string {
  return s.spec === null ? NO_ROUTES_TEXT : `# version ${s.version}, updated ${s.updated_at ?? ''} by ${s.updated_by ?? ''}\n${stringify(s.spec)}`;
}

/** The editor's text as routes (YAML 1.2, of which JSON is a part), or why it is none. */
function parseRoutes(text: string): { routes: unknown } | { error: string } {
  let routes: unknown;
  try {
    // 'error': a warning is not logged (the text is the admin's), an error is thrown.
    routes = parse(text, { logLevel: 'error' });
  } catch (err) {
    return { error: `The routes are not YAML or JSON: ${(err instanceof Error ? err.message : String(err)).split('\n')[0] ?? ''}` };
  }
  if (routes === null || routes === undefined) return { error: 'The text holds no routes. To remove the tenant\'s routes, use "Delete all routes".' };
  return { routes };
}

/** A version from a redirect's query, or null. */
function versionParam(value: string | null): number | null {
  return value !== null && /^\d{1,12}$/.test(value) ? Number(value) : null;
}

/**
 * What the redirect after a change says, only of the version in force: a crafted link cannot make the page claim
 * another change.
 */
function changeNotice(state: RoutesState, query: URLSearchParams): string {
  const is = (key: string) => versionParam(query.get(key)) === state.version;
  if (state.spec !== null) {
    if (is('saved')) return `Routes saved: version ${state.version}.`;
    if (is('unchanged')) return `Nothing changed: version ${state.version} already holds these routes.`;
    return '';
  }
  return is('deleted') ? `Routes deleted (version ${state.version}): the tenant's calls take the default route.` : '';
}

/**
 * `/console/routes` (docs/console.md, "Routes"): every role reads the tenant's routes (targets with their credentials'
 * names, never a secret; models; retries, timeouts, breaker), an admin also the tenant's credentials by name and source
 * (as `GET /v1/credentials` lists them). An admin replaces the routes from YAML or JSON, or removes them, through the
 * API's own functions (upstream-routes.ts): the same validation, store, versions and ledger entries. A refusal shows
 * the page again with the validator's message above the text as typed, and changes nothing.
 */
export function registerRoutesEditorRoutes(server: HttpServer, deps: RoutesEditorDeps): void {
  const { routes, credentials, config } = deps;
  const place: RoutesPlace = credentials === undefined ? { kind: 'control_plane' } : config.controlPlaneUrl !== '' ? { kind: 'sidecar', controlPlaneUrl: config.controlPlaneUrl } : { kind: 'local' };

  const render = (v: SessionViewer, status: number, over: Partial<RoutesPageState>): Reply => {
    const tenantId = v.principal.tenantId;
    const state = routes.state(tenantId);
    const admin = v.principal.scopes.includes('admin:manage');
    const creds = admin && credentials !== undefined ? { list: credentials.list(tenantId), keyConfigured: credentials.keyed } : null;
    return htmlReply(status, routesPage(v, { place, routes: state, credentials: creds, text: editorText(state), error: '', notice: '', ...over }));
  };

  server.route('get', '/console/routes', PAGE, (ctx) => {
    const v = viewerOf(ctx);
    return render(v, 200, { notice: changeNotice(routes.state(v.principal.tenantId), ctx.query) });
  });

  const api: UpstreamRouteDeps = {
    routes,
    // The control plane keeps no credentials: a name is taken as written, and each sidecar resolves it.
    credentialNames: credentials === undefined ? null : (tenantId, name) => credentials.has(tenantId, name),
    onAdminAction: deps.onAdminAction,
  };

  server.route(
    'post',
    '/console/routes',
    ADMIN_FORM,
    csrfCheckedPost(async (v, form, ctx) => {
      const text = form.get('routes') ?? '';
      const parsed = parseRoutes(text);
      if ('error' in parsed) return render(v, 400, { text, error: parsed.error });
      try {
        const change = await replaceRoutes(api, v.principal.tenantId, parsed.routes, v.principal, ctx.trace.traceId);
        return seeOther(`/console/routes?${change.changed ? 'saved' : 'unchanged'}=${change.after.version}`);
      } catch (err) {
        // The validator's message, shown above the routes as typed.
        if (!(err instanceof GatewayError) || err.code !== 'invalid_request') throw err;
        return render(v, 400, { text, error: err.message });
      }
    }),
  );

  server.route(
    'post',
    '/console/routes/delete',
    ADMIN_FORM,
    csrfCheckedPost(async (v, _form, ctx) => {
      try {
        const change = await removeRoutes(api, v.principal.tenantId, v.principal, ctx.trace.traceId);
        return seeOther(`/console/routes?deleted=${change.after.version}`);
      } catch (err) {
        // Deleted already (a second click, another admin): the page as it is, saying so.
        if (!(err instanceof GatewayError) || err.code !== 'not_found') throw err;
        return render(v, 404, { error: 'Nothing changed: this tenant has no routes.' });
      }
    }),
  );
}
