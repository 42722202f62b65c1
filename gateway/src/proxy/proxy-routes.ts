import { GatewayError } from '../errors.js';
import { HANDLED, type HttpServer } from '../http/server.js';
import { ENDPOINTS, type EndpointKind } from './endpoints.js';
import { PROXY_HEADERS } from './proxy-headers.js';
import type { ProxyPipeline } from './pipeline.js';

const ROUTES: readonly [method: 'get' | 'post', path: string, kind: EndpointKind][] = [
  ['post', '/v1/proxy/chat/completions', 'chat'],
  ['post', '/v1/proxy/completions', 'completions'],
  ['post', '/v1/proxy/embeddings', 'embeddings'],
  ['get', '/v1/proxy/models', 'models'],
];

/**
 * The proxy's routes. Authentication, limits and body reading are the pipeline's (not the server's), so that every
 * answer, errors included, carries the verdict headers.
 */
export function registerProxyRoutes(server: HttpServer, handler: ProxyPipeline): void {
  for (const [method, path, kind] of ROUTES) {
    server.route(method, path, { scope: null, body: 'none', headers: PROXY_HEADERS }, (ctx) => handler.handle(ctx, ENDPOINTS[kind]));
  }
  server.route('post', '/v1/proxy/*', { scope: null, body: 'none' }, () => {
    throw new GatewayError('route_not_found', 'this provider endpoint is not proxied (chat/completions, completions, embeddings, models are)');
  });
}

export { HANDLED };
