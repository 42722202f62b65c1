import { randomUUID } from 'node:crypto';
import { createLogger, traceFrom, type TraceContext } from '@aduana/shared';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { CollectOptions } from './collect/index.js';
import { judgingLimitsOf, type ScannerConfig } from './config.js';
import { trustProxySetting } from './clients/trust-proxy.js';
import { browserHostPlugin } from './plugins/browser-host.js';
import { destinationGuardPlugin } from './plugins/destination-guard.js';
import { errorHandlerPlugin, sendError } from './plugins/error-handler.js';
import { inFlightPlugin } from './plugins/in-flight.js';
import { monitoringPlugin } from './plugins/monitoring.js';
import { scannerStorePlugin } from './plugins/scanner-store.js';
import { rateLimitsPlugin } from './plugins/rate-limits.js';
import { selfIdentityPlugin } from './plugins/self-identity.js';
import { createSnapshotSource, snapshotSourcePlugin, type SnapshotSource } from './plugins/snapshot-source.js';
import { COLLECT_DEFAULTS } from './collect/index.js';
import { healthRoutes } from './routes/health.js';
import { monitorRoutes } from './routes/monitors/route.js';
import { overviewRoutes } from './routes/overview/route.js';
import { scanRoutes } from './routes/scans/route.js';
import { webhookRoutes } from './routes/webhooks/route.js';
import { reportRoutes } from './routes/reports/route.js';
import { seoCrawlRoutes } from './routes/seo-crawl/route.js';
import { browserObservationRoutes } from './routes/browser-observations/route.js';
import { seoScanRoutes } from './routes/seo-scan/route.js';
import { superScanRoutes } from './routes/super-scan/route.js';

export interface ScannerAppOptions {
  /** Extra collector options (tests: a trusted CA, the plain-http port for the redirect probe, a resolver). */
  readonly collect?: Partial<CollectOptions>;
  /** Replaces the collector entirely (offline tests). */
  readonly snapshots?: SnapshotSource;
  /** Clock for the rate limiter, the key quota, monitors and their scheduler (tests). */
  readonly now?: () => number;
  /** Extra CAs trusted for webhook receivers (tests: a throwaway CA). */
  readonly webhookCa?: readonly string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's W3C trace: the caller's `traceparent` continued with a new span, or a new trace. */
    trace: TraceContext;
  }
}

/** A correlation id from the edge (X-Request-Id) when it is sane, else a new UUID. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The scanner's Fastify app, not yet listening (call `listen`, or `inject` in tests). Shared infrastructure is
 * registered first as unencapsulated plugins (error handler, rate limits, snapshot source, self identity); each
 * resource's routes follow as encapsulated plugins with their schemas beside them.
 */
export function createScannerApp(config: ScannerConfig, options: ScannerAppOptions = {}): FastifyInstance {
  // Typed as Fastify's logger interface so the instance keeps the default generic (pino's own type is wider).
  const logger: FastifyBaseLogger = createLogger('scanner', { level: config.logLevel });
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: trustProxySetting(config.trustProxy),
    requestIdHeader: false,
    // One line per request (docs/decisions.md), written in onResponse below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Errors Fastify raises before routing (a path that does not decode) get the service's body, not Fastify's.
    frameworkErrors: (err, _request, reply) => {
      sendError(reply, err);
    },
    ajv: {
      // Fastify's defaults strip unknown properties and coerce types; the API refuses extra properties.
      customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false },
    },
  });

  // The API speaks JSON only: without Fastify's default text/plain parser, other media types get 415.
  app.removeContentTypeParser('text/plain');
  app.register(errorHandlerPlugin);
  app.register(inFlightPlugin, { config });
  app.register(rateLimitsPlugin, { config, ...(options.now ? { now: options.now } : {}) });
  // Made here rather than inside the plugin, so a bad SCANNER_ALLOW_PRIVATE throws from createScannerApp itself.
  app.register(snapshotSourcePlugin, { config, source: options.snapshots ?? createSnapshotSource(config, options.collect) });
  app.register(selfIdentityPlugin, { config });
  app.register(destinationGuardPlugin, { config });
  app.register(browserHostPlugin, { config });
  app.register(scannerStorePlugin, { config, ...(options.now ? { now: options.now } : {}) });
  app.register(monitoringPlugin, { config, userAgent: COLLECT_DEFAULTS.userAgent, ...(options.webhookCa ? { webhookCa: options.webhookCa } : {}), ...(options.now ? { now: options.now } : {}) });
  app.decorateRequest('trace', null as unknown as TraceContext);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // W3C Trace Context, as the gateway honours it: continued into webhook deliveries (docs/scanner.md, "Tracing").
    const header = request.headers.traceparent;
    request.trace = traceFrom(typeof header === 'string' ? header : undefined);
    reply.header('x-svc-trace-id', request.trace.traceId);
  });
  app.addHook('onResponse', async (request, reply) => {
    // Path only, never the query or the body.
    request.log.info({ method: request.method, path: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime), traceId: request.trace.traceId }, 'request');
  });
  app.register(healthRoutes);
  const limits = judgingLimitsOf(config);
  app.register(superScanRoutes, { limits });
  app.register(seoScanRoutes, { limits });
  app.register(scanRoutes, { config });
  app.register(monitorRoutes, { config, ...(options.now ? { now: options.now } : {}) });
  app.register(webhookRoutes, { config });
  app.register(overviewRoutes, { config });
  app.register(reportRoutes, { config });
  app.register(seoCrawlRoutes, { config });
  app.register(browserObservationRoutes, { config });
  return app;
}
