import type { HttpServer } from '../http/server.js';
import { assertValid } from '../platform/gateway-ajv.js';
import { actorOf, type RecordAdminAction } from '../governance/admin-actions.js';
import { requestLogChangeSchema, type RequestLogChange, type RequestLogSettingsSource } from '../request-log/request-log-settings.js';

export interface RequestLogRouteDeps {
  requestLog: RequestLogSettingsSource;
  onAdminAction: RecordAdminAction;
}

/**
 * The caller's tenant's request-log settings (docs/console.md, "Request log"): every role reads them; an admin changes
 * them (`PUT`, the fields sent replace the current ones), each change chained in the tenant's ledger. Enabling without
 * REQUEST_LOG_KEY is a 503 `request_log_key_missing`, and changes nothing. At a control plane, which keeps no samples,
 * `key_configured` is null: each sidecar samples with its own key (docs/fleet.md).
 */
export function registerRequestLogRoutes(server: HttpServer, deps: RequestLogRouteDeps): void {
  const { requestLog } = deps;
  server.route('get', '/v1/settings/request-log', { auth: 'pat', scope: 'runtime:read', body: 'none' }, (ctx) => ({
    status: 200,
    body: { ...requestLog.settings(ctx.auth.tenantId), key_configured: requestLog.keyed },
  }));

  server.route('put', '/v1/settings/request-log', { auth: 'pat', scope: 'admin:manage', body: 'json' }, async (ctx) => {
    assertValid(requestLogChangeSchema, ctx.body);
    const next = await requestLog.update(ctx.auth.tenantId, ctx.body as RequestLogChange, actorOf(ctx.auth), ctx.trace.traceId, deps.onAdminAction);
    return { status: 200, body: { ...next, key_configured: requestLog.keyed } };
  });
}
