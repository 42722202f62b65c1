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
 * The proxy's routes: PATs with runtime:write, checked by the server from the head like every such route's; but the
 * refusal, the wait for a plan admission and body reading are the pipeline's, so that every answer, errors included,
 * carries the verdict headers and is recorded.
 */
export function registerProxyRoutes(server: HttpServer, handler: ProxyPipeline): void {
  for (const [method, path, kind] of ROUTES) {
    const endpoint = ENDPOINTS[kind];
    server.route(method, path, { auth: 'pat', scope: 'runtime:write', refusedBy: 'handler', body: 'none', headers: PROXY_HEADERS }, (ctx) => handler.handle(ctx, endpoint).then(answered));
  }
  // Not the proxy: a 404 naming what is proxied, to anyone.
  server.route('post', '/v1/proxy/*', { auth: 'public', body: 'none' }, () => {
    throw new GatewayError('route_not_found', 'this provider endpoint is not proxied (chat/completions, completions, embeddings, models are)');
  });
}
