import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@aduana/shared';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { CollectOptions } from './collect/index.js';
import { listSetting, type ScannerConfig } from './config.js';
import { installErrorHandling } from './plugins/error-handler.js';
import { createRateLimits } from './plugins/rate-limits.js';
import { createSnapshotSource, type SnapshotSource } from './plugins/snapshot-source.js';
import { healthRoutes } from './routes/health.js';
import { seoScanRoutes } from './routes/seo-scan/route.js';
import type { ScanServices } from './routes/services.js';
import { superScanRoutes } from './routes/super-scan/route.js';

export interface ScannerAppOptions {
  /** Extra collector options (tests: a trusted CA, the plain-http port for the redirect probe, a resolver). */
  readonly collect?: Partial<CollectOptions>;
  /** Replaces the collector entirely (offline tests). */
  readonly snapshots?: SnapshotSource;
  /** Clock for the rate limiter (tests). */
  readonly now?: () => number;
}

/** A correlation id from the edge (X-Request-Id) when it is sane, else a new UUID. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The scanner's Fastify app, not yet listening. Infrastructure (rate limits, snapshot source, self identity) is made
 * once here and handed to each route plugin; the error handler is installed on the root so every plugin shares it.
 */
export function createScannerApp(config: ScannerConfig, options: ScannerAppOptions = {}): FastifyInstance {
  // Typed as Fastify's logger interface so the instance keeps the default generic (pino's own type is wider).
  const logger: FastifyBaseLogger = createLogger('scanner', { level: config.logLevel });
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: {
      // Fastify's defaults strip unknown properties and coerce types; the spec wants extra properties refused.
      customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false },
    },
  });

  const services: ScanServices = {
    rateLimits: createRateLimits(config, options.now),
    snapshots: options.snapshots ?? createSnapshotSource(config, options.collect),
    self: {
      hostnames: listSetting(config.publicHostnames).map((h) => h.toLowerCase()),
      listeners: () => {
        const address = app.server.address();
        return address !== null && typeof address === 'object' ? [{ address: (address as AddressInfo).address, port: (address as AddressInfo).port }] : [];
      },
    },
  };

  installErrorHandling(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.register(healthRoutes);
  app.register(superScanRoutes, { services });
  app.register(seoScanRoutes, { services });
  return app;
}
