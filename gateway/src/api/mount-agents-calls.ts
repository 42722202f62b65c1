import type { GatewayConfig } from '../config.js';
import type { HttpServer } from '../http/server.js';
import type { GatewayDeps } from '../gateway-deps.js';
import { registerDecideRoute } from './decision-routes.js';
import { registerEventIngestRoutes } from './events-routes.js';
import { mountProxy, type GatewayProxyParts, type MountedProxy } from './mount-proxy.js';

/** What the agents' calls take: the deciding and ingesting parts, and the proxy's. */
export type AgentsCallsParts = Pick<GatewayDeps, 'engine' | 'decideValidator' | 'ingestor' | 'ingestValidator'> & GatewayProxyParts;

/**
 * The agents' calls every thread answers (each route declares `agentsCall: 'any-thread'`): `POST /v1/decide`, event
 * ingestion and the proxy. Mounted the same way on the main thread's API server (which also serves them on the
 * agents' port) and on each request thread's, so both serve the same routes; the main thread checks that they do
 * before a thread takes connections.
 */
export function mountAgentsCalls(server: HttpServer, config: GatewayConfig, parts: AgentsCallsParts): MountedProxy {
  registerDecideRoute(server, parts);
  registerEventIngestRoutes(server, { ingestor: parts.ingestor, ingestValidator: parts.ingestValidator, config });
  return mountProxy(server, config, parts);
}
