import type { Egress, Logger } from '@aduana/shared';
import type { GatewayConfig } from '../config.js';
import type { HttpServer } from '../http/server.js';
import type { TenantRuntimes } from '../policy/runtime/tenant-runtime.js';
import type { AgentRegistry } from '../agents/agent-registry.js';
import type { AuditTrail } from '../governance/audit-trail.js';
import type { RequestLog } from '../request-log/request-log.js';
import type { BucketSeries } from '../telemetry/bucket-histogram.js';
import { EvalPool } from '../policy/runtime/eval-pool.js';
import { proxyEdge, registerProxyRoutes } from './proxy-routes.js';
import { UpstreamClient } from '../proxy/upstream/upstream-client.js';
import { PriceTable } from '../proxy/pricing/price-table.js';
import { usdBrlRate } from '../proxy/pricing/usd-rate.js';
import { ToolCallValidator } from '../proxy/output/tool-call-validator.js';
import { ProxyPipeline } from '../proxy/pipeline.js';
import { StoredPrompts } from '../proxy/stored/stored-prompts.js';
import type { StoredResponses } from '../proxy/stored/stored-responses.js';
import { WIRE_FORMATS, type Provider } from '../proxy/wire/wire-formats.js';
import { Router, type RouteSource } from '../proxy/routing/router.js';
import type { CredentialResolver } from '../proxy/routing/route-spec.js';

/** What the proxy takes from the rest of the gateway (the main thread's, or a request thread's own). */
export interface GatewayProxyParts {
  readonly runtimes: TenantRuntimes;
  readonly agents: AgentRegistry;
  readonly audit: AuditTrail;
  readonly stored: StoredResponses;
  readonly egress: Egress;
  readonly logger: Logger;
  /** The request log's sampler (a sidecar samples with its own key, as its bundle says); null: no key, nothing is drawn. */
  readonly requestLog: RequestLog | null;
  readonly sharedLimits: boolean;
  readonly stepTimes: { series(label: string): BucketSeries } | null;
  /** Tenants' routes and the credentials they name (docs/routing.md); absent: every call takes the default route. */
  readonly routes?: {
    readonly source: RouteSource;
    readonly credentials: CredentialResolver;
    /** Told when a target's breaker opens (the telemetry's gauge; a request thread tells the main thread). */
    readonly onBreakerOpened?: (tenantId: string, target: string, untilMs: number) => void;
  };
}

export interface MountedProxy {
  /** Its evaluation worker (inputs past EVAL_INLINE_MAX_CHARS). */
  readonly evalPool: EvalPool;
  /** Its router, told when a tenant's routes change (null without routes). */
  readonly router: Router | null;
  /** Closes its upstream connection pools and its evaluation worker. */
  close(): Promise<void>;
}

/**
 * The LLM proxy on a server, built from the gateway's settings: the prices, one upstream pool per wire format (Azure's
 * only when configured), an evaluation worker, the pipeline and its routes. The main thread and each request thread
 * that judges calls mount their own.
 */
export function mountProxy(server: HttpServer, config: GatewayConfig, parts: GatewayProxyParts): MountedProxy {
  usdBrlRate(config.usdBrlRate);
  const upstreamOptions = {
    apiKeyMode: config.upstreamApiKeyMode === 'replace' ? ('replace' as const) : ('fill' as const),
    forwardRoutingHeaders: config.forwardProviderRoutingHeaders,
    timeoutMs: config.upstreamTimeoutMs,
    connections: config.upstreamConnections,
    egress: parts.egress,
  };
  // One pool per format whose upstream is configured (Azure's only when UPSTREAM_AZURE_BASE_URL is set).
  const upstreams = {} as Record<Provider, UpstreamClient | null>;
  for (const wire of WIRE_FORMATS) {
    const up = wire.upstream(config);
    upstreams[wire.provider] = up ? new UpstreamClient({ ...upstreamOptions, baseUrl: up.baseUrl, apiKey: up.apiKey, keyHeader: wire.upstreamKeyHeader }) : null;
  }
  const evalPool = new EvalPool(config.evalWorkerTimeoutMs);
  // The most of an answer read whole (a routed answer translated from another provider's included).
  const maxAnswerBytes = 64 * 1024 * 1024;
  const router = parts.routes
    ? new Router(parts.routes.source, parts.routes.credentials, { connections: config.upstreamConnections, forwardRoutingHeaders: config.forwardProviderRoutingHeaders, egress: parts.egress, maxAnswerBytes, logger: parts.logger, onBreakerOpened: parts.routes.onBreakerOpened })
    : null;
  const proxy = new ProxyPipeline({
    edge: proxyEdge(server),
    runtimes: parts.runtimes,
    agents: parts.agents,
    prices: PriceTable.load(config.priceTable, config.priceFile),
    tools: new ToolCallValidator(),
    upstreams,
    audit: parts.audit,
    stored: parts.stored,
    prompts: StoredPrompts.parse(config.openaiPrompts),
    logger: parts.logger,
    maxModelLength: config.ledgerMaxModelLength,
    evalPool,
    evalInlineMaxChars: config.evalInlineMaxChars,
    maxBodyBytes: config.proxyBodyLimit,
    maxAnswerBytes,
    sharedLimits: parts.sharedLimits,
    requestLog: parts.requestLog,
    stepTimes: parts.stepTimes,
    router,
  });
  registerProxyRoutes(server, proxy, WIRE_FORMATS.filter((wire) => upstreams[wire.provider] !== null));
  return {
    evalPool,
    router,
    close: async () => {
      await Promise.all([...WIRE_FORMATS.map((wire) => upstreams[wire.provider]?.close()), router?.close()]);
      await evalPool.close();
    },
  };
}
