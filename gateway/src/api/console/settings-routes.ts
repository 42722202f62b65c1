import { GatewayError } from '../../errors.js';
import type { Handler, HttpServer } from '../../http/server.js';
import { assertValid } from '../../platform/gateway-ajv.js';
import { actorOf, type RecordAdminAction } from '../../governance/admin-actions.js';
import { requestLogChangeSchema, type RequestLogChange, type RequestLogSettingsSource } from '../../request-log/request-log-settings.js';
import { viewerOf } from './console-session.js';
import { ADMIN_FORM, PAGE, csrfCheckedPost, htmlReply, seeOther } from './console-route-kit.js';
import { settingsPage, type RequestLogPlace } from './pages/settings-page.js';

export interface SettingsRouteDeps {
  /** The embedded gateway's (or a sidecar's) request log, or the control plane's settings (it keeps no samples). */
  readonly requestLogSettings: RequestLogSettingsSource;
  /** CONTROL_PLANE_URL set: a sidecar, whose settings come from its control plane's bundle. */
  readonly config: { readonly controlPlaneUrl: string };
  readonly onAdminAction: RecordAdminAction;
}

/** A form's number as typed: a decimal number, or the text itself (which the schema then refuses as not a number). */
function formNumber(value: string | null): number | string | undefined {
  if (value === null) return undefined;
  return /^\d{1,9}(?:\.\d{1,12})?$/.test(value) ? Number(value) : value.slice(0, 32);
}

/**
 * `/console/settings` (docs/console.md, "Request log"): every role reads the tenant's settings; an admin changes the
 * request log with a CSRF-checked form, validated and chained as `PUT /v1/settings/request-log` is. A refused change
 * (bad input, no REQUEST_LOG_KEY) shows the page again with the reason and changes nothing. At a control plane the
 * change is carried to the sidecars in their bundle; at a sidecar the form is not shown (the route guard refuses it).
 */
export function registerSettingsRoutes(server: HttpServer, deps: SettingsRouteDeps): void {
  const requestLog = deps.requestLogSettings;
  const controlPlaneUrl = deps.config.controlPlaneUrl;
  const place = (tenantId: string): RequestLogPlace => {
    const settings = requestLog.settings(tenantId);
    const keyed = requestLog.keyed;
    if (keyed === null) return { kind: 'control_plane', settings };
    return controlPlaneUrl !== '' ? { kind: 'sidecar', settings, keyed, controlPlaneUrl } : { kind: 'local', settings, keyed };
  };

  const show: Handler = (ctx) => {
    const v = viewerOf(ctx);
    return htmlReply(200, settingsPage(v, { place: place(v.principal.tenantId), error: '', saved: ctx.query.get('saved') === '1' }));
  };
  server.route('get', '/console/settings', PAGE, show);

  server.route(
    'post',
    '/console/settings/request-log',
    ADMIN_FORM,
    csrfCheckedPost(async (v, form, ctx) => {
      const tenantId = v.principal.tenantId;
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
        return htmlReply(err.status, settingsPage(v, { place: place(tenantId), error: err.message, saved: false }));
      }
      return seeOther('/console/settings?saved=1');
    }),
  );
}
