import { GatewayError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import type { RequestContext } from '../http/request-context.js';
import { assertOwnTenant, cursorParam, limitParam, queryTenant } from '../http/list-params.js';
import { isValidLedgerName } from '../ledger/index.js';
import { METRICS, type MetricName } from '../telemetry/metric-store.js';
import { parseIngest } from '../telemetry/ingest-request.js';
import { localTelemetryQueries } from '../telemetry/local-telemetry-queries.js';
import type { TelemetryQueries } from '../telemetry/telemetry-queries.js';
import type { GatewayConfig } from '../config.js';
import type { GatewayDeps } from '../gateway-deps.js';
import { scrapeScope } from '../telemetry/scrape-guard.js';

const SECONDS = /^\d{1,12}$/;

/** The optional `agentId`/`agent_id` query filter: no control characters (400). */
function agentParam(ctx: RequestContext): string | undefined {
  const raw = ctx.query.get('agentId') ?? ctx.query.get('agent_id');
  if (raw === null || raw === '') return undefined;
  if (!isValidLedgerName(raw)) throw new GatewayError('invalid_request', 'agentId: no control characters, at most 256 bytes');
  return raw;
}

type TelemetryRouteConfig = Pick<GatewayConfig, 'telemetryIngestBodyLimit' | 'telemetryRetentionDays' | 'listDefaultLimit' | 'listMaxLimit'>;

/**
 * Telemetry's status, ingest and queries (docs/telemetry.md): one validation for both the embedded gateway (LMDB)
 * and the control plane (PostgreSQL, docs/fleet.md), whichever `queries` holds the data.
 */
export function registerTelemetryQueryRoutes(server: HttpServer, queries: TelemetryQueries, config: TelemetryRouteConfig): void {
  server.route('get', '/v1/telemetry/status', { auth: 'pat', scope: 'runtime:read', body: 'none' }, () => ({ status: 200, body: queries.status() }));

  server.route('post', '/v1/telemetry/ingest', { auth: 'pat', scope: 'runtime:write', body: 'json', maxBody: config.telemetryIngestBodyLimit }, async (ctx) => {
    const req = parseIngest(ctx.body, ctx.trace.traceId);
    assertOwnTenant(ctx, req.tenantId);
    return { status: 200, body: await queries.ingest(ctx.auth.tenantId, req) };
  });

  server.route('get', '/v1/telemetry/query/logs', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    queryTenant(ctx);
    const limit = limitParam(ctx, config.listDefaultLimit, config.listMaxLimit);
    return { status: 200, body: await queries.logs(ctx.auth.tenantId, { agentId: agentParam(ctx), limit, cursor: cursorParam(ctx) }) };
  });

  server.route('get', '/v1/telemetry/query/stats', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    queryTenant(ctx);
    const metric = ctx.query.get('metric') ?? '';
    if (!METRICS.includes(metric as MetricName)) throw new GatewayError('invalid_request', `metric: one of ${METRICS.join(', ')}`);
    const from = ctx.query.get('from') ?? '';
    const to = ctx.query.get('to') ?? '';
    if (!SECONDS.test(from) || !SECONDS.test(to)) throw new GatewayError('invalid_request', 'from and to: required, Unix seconds');
    if (Number(to) < Number(from)) throw new GatewayError('invalid_request', 'to: must not be before from');
    // Nothing older than the retention is kept: a window reaching before it would answer a partial series as if whole.
    const oldest = Math.floor((Date.now() - queries.retentionMs) / 1000);
    if (Number(from) < oldest) throw new GatewayError('invalid_request', `from: telemetry is kept for ${config.telemetryRetentionDays} days; from must be at least ${oldest}`);
    return { status: 200, body: await queries.stats(ctx.auth.tenantId, metric as MetricName, Number(from), Number(to), agentParam(ctx)) };
  });

  server.route('get', '/v1/telemetry/query/errors/issues', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    queryTenant(ctx);
    const limit = limitParam(ctx, config.listDefaultLimit, config.listMaxLimit);
    return { status: 200, body: await queries.issues(ctx.auth.tenantId, limit) };
  });

  server.route('get', '/v1/telemetry/query/errors/events', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    queryTenant(ctx);
    const limit = limitParam(ctx, config.listDefaultLimit, config.listMaxLimit);
    const issueId = ctx.query.get('issueId') ?? undefined;
    if (issueId !== undefined && !/^iss_[0-9a-f]{32}$/.test(issueId)) throw new GatewayError('invalid_request', 'issueId: an issue id');
    return { status: 200, body: await queries.events(ctx.auth.tenantId, limit, issueId) };
  });
}

/** The embedded gateway's (and a sidecar's) telemetry: the routes above on its LMDB stores, and Prometheus. */
export function registerTelemetryRoutes(server: HttpServer, deps: GatewayDeps): void {
  const { telemetry, config, prometheus } = deps;
  registerTelemetryQueryRoutes(server, localTelemetryQueries(telemetry, deps.metrics, () => deps.ledger.anchorStats), config);

  // The operator's scrape credential is not a PAT: the `scrape` guard (telemetry/scrape-guard.ts) takes it, or a PAT.
  server.route('get', '/v1/telemetry/metrics', { auth: 'scrape', body: 'none' }, async (ctx) => {
    const { text, contentType } = await prometheus.scrape(scrapeScope(ctx));
    return { status: 200, raw: text, contentType };
  });
}
