import { GatewayError } from '../errors.js';
import { RawChunkWriter, endRaw, writeRawHead, writeRawWhole } from '../http/raw-response.js';
import { HANDLED, type HttpServer } from '../http/server.js';
import { ENDPOINTS, type EndpointKind } from '../proxy/endpoints.js';
import { PROXY_HEADERS } from '../proxy/proxy-headers.js';
import type { ProxyEdge } from '../proxy/proxy-edge.js';
import type { ProxyPipeline } from '../proxy/pipeline.js';

const ROUTES: readonly [method: 'get' | 'post', path: string, kind: EndpointKind][] = [
  ['post', '/v1/proxy/chat/completions', 'chat'],
  ['post', '/v1/proxy/completions', 'completions'],
  ['post', '/v1/proxy/embeddings', 'embeddings'],
  ['get', '/v1/proxy/models', 'models'],
];

/** The proxy's way to read and answer, on this server: handed to the pipeline, which never imports the server. */
export function proxyEdge(server: HttpServer): ProxyEdge {
  return {
    readBody: (ctx, maxBytes) => server.readBody(ctx, maxBytes),
    writeWhole: writeRawWhole,
    writeHead: writeRawHead,
    chunkWriter: (ctx) => new RawChunkWriter(ctx),
    end: endRaw,
    complete: (ctx, status) => server.complete(ctx, status),
  };
}

/** The pipeline answers every call itself. */
const answered = (): typeof HANDLED => HANDLED;

/**
 * The proxy's routes. Authentication, limits and body reading are the pipeline's (not the server's), so that every
 * answer, errors included, carries the verdict headers.
 */
export function registerProxyRoutes(server: HttpServer, handler: ProxyPipeline): void {
  for (const [method, path, kind] of ROUTES) {
    const endpoint = ENDPOINTS[kind];
    server.route(method, path, { scope: null, body: 'none', headers: PROXY_HEADERS }, (ctx) => handler.handle(ctx, endpoint).then(answered));
  }
  server.route('post', '/v1/proxy/*', { scope: null, body: 'none' }, () => {
    throw new GatewayError('route_not_found', 'this provider endpoint is not proxied (chat/completions, completions, embeddings, models are)');
  });
}
