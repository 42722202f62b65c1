import { GatewayError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import { queryTenant } from '../http/list-params.js';
import { METRICS, type MetricName } from '../telemetry/metric-store.js';
import type { GatewayDeps } from '../gateway-deps.js';

const SECONDS = /^\d{1,12}$/;

/** `GET /v1/telemetry/query/stats`: a tenant's metric series (docs/decisions.md, "Telemetry"). */
export function registerTelemetryRoutes(server: HttpServer, deps: GatewayDeps): void {
  server.route('get', '/v1/telemetry/query/stats', { scope: 'runtime:read', body: 'none' }, (ctx) => {
    queryTenant(ctx);
    const metric = ctx.query.get('metric') ?? '';
    if (!METRICS.includes(metric as MetricName)) throw new GatewayError('invalid_request', `metric: one of ${METRICS.join(', ')}`);
    const from = ctx.query.get('from') ?? '';
    const to = ctx.query.get('to') ?? '';
    if (!SECONDS.test(from) || !SECONDS.test(to)) throw new GatewayError('invalid_request', 'from and to: required, Unix seconds');
    if (Number(to) < Number(from)) throw new GatewayError('invalid_request', 'to: must not be before from');
    const agentId = ctx.query.get('agentId') ?? ctx.query.get('agent_id') ?? undefined;
    return { status: 200, body: deps.metrics.query(ctx.auth.tenantId, metric as MetricName, Number(from), Number(to), agentId || undefined) };
  });
}
