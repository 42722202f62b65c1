import type { CredentialView } from '../../../credentials/credential-store.js';
import type { RoutesState } from '../../../proxy/routing/route-store.js';
import { ROUTE_DEFAULTS } from '../../../proxy/routing/route-schema.js';
import type { ModelRouteSpec, RouteSpec, TargetSpec } from '../../../proxy/routing/route-spec.js';
import { esc } from '../html-headers.js';
import { csrfField, page, type Viewer } from './layout.js';

/**
 * Where this console's routes are kept: here (shown, and changed by an admin); at a sidecar, which shows its routes
 * and refuses changes (every admin change is its control plane's); or at a fleet's control plane, which keeps them for
 * every sidecar and no credential (each sidecar resolves the names itself).
 */
export type RoutesPlace = { kind: 'local' } | { kind: 'sidecar'; controlPlaneUrl: string } | { kind: 'control_plane' };

export interface RoutesPageState {
  readonly place: RoutesPlace;
  /** The tenant's routes and version. */
  readonly routes: RoutesState;
  /** The tenant's provider credentials, by name and where each resolves from: for an admin only, as the API lists them. */
  readonly credentials: { readonly list: readonly CredentialView[]; readonly keyConfigured: boolean } | null;
  /** The editor's text: the routes in force as YAML, or what the admin typed when it was refused. */
  readonly text: string;
  /** Why a save or deletion was refused (the validator's message), shown above the text as typed. */
  readonly error: string;
  /** What the last change did, said after its redirect. */
  readonly notice: string;
}

/** The editor's text when the tenant has no routes: comments only, so saving it unchanged saves nothing. */
export const NO_ROUTES_TEXT = `# No routes: every call takes the default route (the UPSTREAM_* settings).
# Write the routes here as YAML or JSON (docs/routing.md), for example:
#
# targets:
#   openai-main: { provider: openai, base_url: https://api.openai.com/v1, credential: openai-prod }
#   local:       { provider: openai, base_url: http://vllm:8000/v1 }
# models:
#   gpt-4o: { strategy: fallback, targets: [openai-main, local] }
#   fast:   { strategy: weighted, targets: [{ target: openai-main, model: gpt-4.1-mini, weight: 3 }, { target: local, model: qwen3-8b }] }
# retry:       { attempts: 2 }
# timeouts_ms: { connect: 2000, first_byte: 60000 }
# breaker:     { consecutive_failures: 5, open_s: 30 }
`;

const muted = (text: string): string => `<span class="muted">${esc(text)}</span>`;
const mono = (text: string): string => `<span class="mono">${esc(text)}</span>`;

function targetCredentials(t: TargetSpec): string {
  const names = t.credential !== undefined ? [t.credential] : (t.credentials ?? []);
  if (names.length === 0) return muted("none: the caller's own key, if any");
  return `${names.map(mono).join(', ')}${names.length > 1 ? ` ${muted('(rotated)')}` : ''}`;
}

function targetsTable(spec: RouteSpec): string {
  const rows = Object.entries(spec.targets)
    .map(([name, t]) => {
      const deployments = Object.entries(t.deployments ?? {})
        .map(([model, d]) => `${mono(model)} → ${mono(d)}`)
        .join('<br>');
      const version = t.api_version !== undefined ? `<br>${muted('api-version')} ${mono(t.api_version)}` : '';
      return `<tr data-target="${esc(name)}"><td class="mono">${esc(name)}</td><td>${esc(t.provider)}${version}</td><td class="mono">${esc(t.base_url)}</td><td>${targetCredentials(t)}</td><td>${deployments || muted('—')}</td></tr>`;
    })
    .join('');
  return `<h2>Targets</h2><table id="routes-targets"><thead><tr><th>Target</th><th>Provider</th><th>Base URL</th><th>Credentials (names)</th><th>Deployments</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function modelTargets(route: ModelRouteSpec): string {
  const refs = route.targets.map((r) => (typeof r === 'string' ? { target: r } : r));
  const total = refs.reduce((sum, r) => sum + (r.weight ?? 1), 0);
  const items = refs.map((r) => {
    const model = r.model !== undefined ? ` ${muted('as')} ${mono(r.model)}` : '';
    const weight = route.strategy === 'weighted' ? ` ${muted(`weight ${r.weight ?? 1} (${(((r.weight ?? 1) / total) * 100).toFixed(1)} %)`)}` : '';
    return `<li>${mono(r.target)}${model}${weight}</li>`;
  });
  return `<ol class="route-targets">${items.join('')}</ol>`;
}

function modelsTable(spec: RouteSpec): string {
  const rows = Object.entries(spec.models ?? {})
    .map(([name, route]) => `<tr data-model="${esc(name)}"><td class="mono">${esc(name)}</td><td>${esc(route.strategy)}</td><td>${modelTargets(route)}</td></tr>`)
    .join('');
  return `<h2>Models</h2><p class="muted">A model an agent names with no row here goes to the default route (the <code>UPSTREAM_*</code> settings).</p><table id="routes-models"><thead><tr><th>Model</th><th>Strategy</th><th>Targets, in order</th></tr></thead><tbody>${rows || '<tr><td colspan="3" class="muted">No model routes: every model takes the default route.</td></tr>'}</tbody></table>`;
}

/** A value as written, or its default, said so. */
function setting(value: number | string | undefined, fallback: number | string, unit = ''): string {
  return value !== undefined ? `${esc(value)}${unit}` : `${esc(fallback)}${unit} ${muted('(default)')}`;
}

function behaviourTable(spec: RouteSpec): string {
  const d = ROUTE_DEFAULTS;
  const r = spec.retry;
  const t = spec.timeouts_ms;
  const b = spec.breaker;
  const on = r?.on !== undefined ? esc(r.on.join(', ')) : `${esc(d.retry.on.join(', '))} ${muted('(default)')}`;
  const rows: [string, string, string][] = [
    ['retry-attempts', 'Retries (attempts after the first)', setting(r?.attempts, d.retry.attempts)],
    ['retry-on', 'Retried on', on],
    ['retry-backoff', 'Back-off', `${setting(r?.backoff_ms?.base, d.retry.backoff_ms.base, ' ms')} to ${setting(r?.backoff_ms?.max, d.retry.backoff_ms.max, ' ms')}`],
    ['retry-after', 'Retry-After waited for up to', setting(r?.respect_retry_after_s, d.retry.respect_retry_after_s, ' s')],
    ['timeout-connect', 'Connect timeout', setting(t?.connect, d.timeouts_ms.connect, ' ms')],
    ['timeout-first-byte', 'First-byte timeout', setting(t?.first_byte, d.timeouts_ms.first_byte, ' ms')],
    ['timeout-idle-stream', 'Idle-stream timeout', setting(t?.idle_stream, d.timeouts_ms.idle_stream, ' ms')],
    ['breaker', 'Breaker', `opens after ${setting(b?.consecutive_failures, d.breaker.consecutive_failures)} failures in a row, for ${setting(b?.open_s, d.breaker.open_s, ' s')}`],
  ];
  return `<h2>Retries, timeouts and breaker</h2><table id="routes-behaviour"><tbody>${rows.map(([id, label, value]) => `<tr><th scope="row">${esc(label)}</th><td id="${id}">${value}</td></tr>`).join('')}</tbody></table>`;
}

function credentialsTable(c: NonNullable<RoutesPageState['credentials']>): string {
  const rows = c.list
    .map((cred) => {
      const source = cred.source === 'stored' ? 'stored' : `environment (${mono(cred.variable)})`;
      const updated = cred.source === 'stored' ? `${mono(cred.updated_at)} ${muted('by')} ${mono(cred.updated_by)}` : muted('—');
      return `<tr data-credential="${esc(cred.name)}"><td class="mono">${esc(cred.name)}</td><td>${source}</td><td>${updated}</td></tr>`;
    })
    .join('');
  const key = c.keyConfigured ? 'CREDENTIALS_KEY is set: credentials can be stored here' : 'CREDENTIALS_KEY is not set: nothing can be stored, only the environment\'s ADUANA_CREDENTIAL_* resolve';
  return `<h2>Provider credentials</h2><p class="muted" id="credentials-key">The names a route may give, and where each resolves from; secrets are never shown. ${esc(key)}. Set them with <code>aduana credential set NAME</code> or <code>PUT /v1/credentials/{name}</code>.</p><table id="credentials"><thead><tr><th>Name</th><th>Source</th><th>Updated</th></tr></thead><tbody>${rows || '<tr><td colspan="3" class="muted">No provider credentials.</td></tr>'}</tbody></table>`;
}

function summary(s: RoutesState): string {
  if (s.spec !== null) {
    return `<p id="routes-version">Version <strong>${s.version}</strong>, changed ${mono(s.updated_at ?? '')} by ${mono(s.updated_by ?? '')}.</p>`;
  }
  const removed = s.version > 0 ? ` ${muted(`(version ${s.version}: removed ${s.updated_at ?? ''} by ${s.updated_by ?? ''})`)}` : '';
  return `<p id="routes-none">This tenant has no routes: every call goes to the default route, the <code>UPSTREAM_*</code> settings.${removed}</p>`;
}

function editor(v: Viewer, s: RoutesPageState, hasRoutes: boolean): string {
  const save = `<form method="post" action="/console/routes" class="policy-editor" id="routes-form">${csrfField(v)}<label for="routes-text">Routes (YAML or JSON), replaced whole<textarea id="routes-text" name="routes" rows="18" spellcheck="false">${esc(s.text)}</textarea></label><div class="editor-actions"><button type="submit" id="save-routes">Save routes</button></div></form>`;
  const remove = hasRoutes
    ? `<form method="post" action="/console/routes/delete" id="delete-routes-form">${csrfField(v)}<p>Remove every route: the tenant's calls take the default route again.</p><button type="submit" class="secondary" id="delete-routes">Delete all routes</button></form>`
    : '';
  return `<h2>Edit</h2><p class="muted">Saved as <code>PUT /v1/routes</code> saves: checked whole (a refusal names the first field that is wrong, and nothing changes), a new version, chained in the ledger as <code>routes.updated</code> (a deletion as <code>routes.deleted</code>).</p>${save}${remove}`;
}

/** `/console/routes` (docs/console.md, "Routes"): the tenant's routes for every role; an editor for admins. */
export function routesPage(v: Viewer, s: RoutesPageState): string {
  const note = s.error
    ? `<div class="notice bad" role="alert" id="routes-error">${esc(s.error)}</div>`
    : s.notice
      ? `<div class="notice ok" role="status" id="routes-notice">${esc(s.notice)}</div>`
      : '';
  const state = s.routes;
  const spec = state.spec;
  const shown = spec !== null ? `${targetsTable(spec)}${modelsTable(spec)}${behaviourTable(spec)}` : '';
  const where =
    s.place.kind === 'sidecar'
      ? `<p class="muted" id="routes-place">This gateway is a sidecar: its routes are set at its control plane, ${mono(s.place.controlPlaneUrl)}, and are not changed here.</p>`
      : s.place.kind === 'control_plane'
        ? `<p class="muted" id="routes-place">These routes go to every sidecar serving the tenant. Credentials are named, never kept here: each sidecar resolves a name from its own store or its environment (<code>ADUANA_CREDENTIAL_&lt;NAME&gt;</code>).</p>`
        : '';
  const admin = v.principal.scopes.includes('admin:manage');
  const change = s.place.kind === 'sidecar' ? '' : admin ? editor(v, s, spec !== null) : '<p class="muted" id="routes-read-only">Only an admin may change the routes.</p>';
  const credentials = s.credentials ? credentialsTable(s.credentials) : '';
  return page(v, 'routes', 'Routes', `${note}${where}${summary(state)}${shown}${credentials}${change}`);
}
