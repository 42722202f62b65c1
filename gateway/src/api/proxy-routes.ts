import { GatewayError } from '../errors.js';
import { RawChunkWriter, endRaw, writeRawHead, writeRawWhole } from '../http/raw-response.js';
import { HANDLED, type HttpServer } from '../http/server.js';
import type { ProxyEdge } from '../proxy/proxy-edge.js';
import type { ProxyPipeline } from '../proxy/pipeline.js';
import { NOT_PROXIED_HEADERS } from '../proxy/verdict-headers.js';
import type { WireFormat } from '../proxy/wire/wire-format.js';

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
export function registerProxyRoutes(server: HttpServer, handler: ProxyPipeline, formats: readonly WireFormat[]): void {
  // Each format's routes mirror its provider's API under a base URL of ours, so its official SDK needs only that base
  // URL and the PAT where it puts its key (docs/decisions.md, "Governance proxy: other wire formats"). A format whose
  // upstream is not configured (Azure has no default) is not given: its paths are the 404 below.
  for (const wire of formats) {
    const options = { auth: 'pat', scope: 'runtime:write', refusedBy: 'handler', keyHeaders: wire.keyHeaders, body: 'none', headers: wire.headers, agentsCall: 'any-thread' } as const;
    for (const route of wire.routes) {
      if ('endpoint' in route) {
        const endpoint = route.endpoint;
        server.route(route.method, route.path, options, (ctx) => handler.handle(ctx, endpoint).then(answered));
        continue;
      }
      // A route that names the endpoint in its path (Gemini's `{model}:{method}`): a call that is not proxied is a
      // 404, never relayed.
      const { pick, notProxied } = route;
      server.route(route.method, route.path, options, (ctx) => {
        const endpoint = pick(ctx);
        // A caller the guard refused hears that first, whatever it asked for.
        if (endpoint === null && ctx.refusal !== null) throw ctx.refusal.thrown;
        if (endpoint === null) throw new GatewayError('route_not_found', notProxied, '', NOT_PROXIED_HEADERS);
        return handler.handle(ctx, endpoint).then(answered);
      });
    }
  }
  // Not the proxy: a 404 naming what is proxied, to anyone, with the verdict headers of every proxy answer; so do the
  // server's own 404 and 405 under the prefix (other methods).
  server.route('post', '/v1/proxy/*', { auth: 'public', body: 'none', agentsCall: 'any-thread' }, () => {
    throw new GatewayError(
      'route_not_found',
      'this provider endpoint is not proxied (chat/completions, completions, embeddings, models, responses; anthropic/v1/messages and its count_tokens; azure/openai/deployments/{d}/chat/completions and embeddings, with UPSTREAM_AZURE_BASE_URL set, are)',
      '',
      NOT_PROXIED_HEADERS,
    );
  });
  server.fallbackHeadersUnder('/v1/proxy/', NOT_PROXIED_HEADERS);
}
