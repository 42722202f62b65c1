import { GatewayError } from '../../errors.js';
import type { Handler, HttpServer, Reply, RouteOptions } from '../../http/server.js';
import { assertValid } from '../../http/gateway-ajv.js';
import { actorOf, type RecordAdminAction } from '../../ledger/admin-actions.js';
import type { RequestLog } from '../../request-log/request-log.js';
import { requestLogChangeSchema, type RequestLogChange } from '../../request-log/request-log-settings.js';
import { assertCsrf, formBody, viewerOf } from './console-session.js';
import { HTML_HEADERS, HTML_TYPE } from './html-headers.js';
import { settingsPage, type RequestLogPlace } from './pages/settings-page.js';

const PAGE: RouteOptions = { auth: 'session', signIn: '/console/login', body: 'none' };
const ADMIN_FORM: RouteOptions = { auth: 'session', scope: 'admin:manage', body: 'raw' };

export interface SettingsRouteDeps {
  /** The embedded gateway's (or a sidecar's) request log; undefined at a control plane, which keeps none. */
  readonly requestLog?: RequestLog | undefined;
  /** CONTROL_PLANE_URL set: a sidecar, whose settings come from its control plane (which does not carry this one yet). */
  readonly config: { readonly controlPlaneUrl: string };
  readonly onAdminAction: RecordAdminAction;
}

function html(status: number, body: string): Reply {
  return { status, raw: body, contentType: HTML_TYPE, headers: HTML_HEADERS };
}

/** A form's number as typed: a decimal number, or the text itself (which the schema then refuses as not a number). */
function formNumber(value: string | null): number | string | undefined {
  if (value === null) return undefined;
  return /^\d{1,9}(?:\.\d{1,12})?$/.test(value) ? Number(value) : value.slice(0, 32);
}

/**
 * `/console/settings` (docs/console.md, "Request log"): every role reads the tenant's settings; an admin changes the
 * request log with a CSRF-checked form, validated and chained as `PUT /v1/settings/request-log` is. A refused change
 * (bad input, no REQUEST_LOG_KEY) shows the page again with the reason and changes nothing.
 */
export function registerSettingsRoutes(server: HttpServer, deps: SettingsRouteDeps): void {
  const { requestLog } = deps;
  const sidecar = deps.config.controlPlaneUrl !== '';
  const place = (tenantId: string): RequestLogPlace =>
    requestLog === undefined ? { kind: 'control_plane' } : sidecar ? { kind: 'sidecar' } : { kind: 'local', settings: requestLog.settings(tenantId), keyed: requestLog.keyed };

  const show: Handler = (ctx) => {
    const v = viewerOf(ctx);
    return html(200, settingsPage(v, { place: place(v.principal.tenantId), error: '', saved: ctx.query.get('saved') === '1' }));
  };
  server.route('get', '/console/settings', PAGE, show);

  server.route('post', '/console/settings/request-log', ADMIN_FORM, async (ctx) => {
    const v = viewerOf(ctx);
    const form = formBody(ctx);
    assertCsrf(form, v.csrf);
    const tenantId = v.principal.tenantId;
    if (requestLog === undefined) throw new GatewayError('not_found', 'the request log is configured per gateway, not at the control plane');
    const change: Record<string, unknown> = { enabled: form.get('enabled') === 'on' };
    const rate = formNumber(form.get('sample_rate'));
    const days = formNumber(form.get('retention_days'));
    if (rate !== undefined) change['sample_rate'] = rate;
    if (days !== undefined) change['retention_days'] = days;
    try {
      assertValid(requestLogChangeSchema, change);
      await requestLog.update(tenantId, change as RequestLogChange, actorOf(v.principal), ctx.trace.traceId, deps.onAdminAction);
    } catch (err) {
      if (!(err instanceof GatewayError) || (err.code !== 'invalid_request' && err.code !== 'request_log_key_missing')) throw err;
      return html(err.status, settingsPage(v, { place: place(tenantId), error: err.message, saved: false }));
    }
    return { status: 303, headers: { location: '/console/settings?saved=1', 'cache-control': 'no-store' } };
  });
}
