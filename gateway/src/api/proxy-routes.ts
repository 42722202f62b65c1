import { GatewayError } from '../errors.js';
import { RawChunkWriter, endRaw, writeRawHead, writeRawWhole } from '../http/raw-response.js';
import { HANDLED, type HttpServer } from '../http/server.js';
import { ENDPOINTS, geminiEndpoint, type EndpointKind, type Provider } from '../proxy/endpoints.js';
import { OPENAI_PROXY_HEADERS, PROXY_HEADERS } from '../proxy/proxy-headers.js';
import type { ProxyEdge } from '../proxy/proxy-edge.js';
import type { ProxyPipeline } from '../proxy/pipeline.js';
import { NOT_PROXIED_HEADERS } from '../proxy/verdict-headers.js';

/**
 * Each provider's routes mirror its own API under a base URL of ours, so its official SDK needs only that base URL and
 * the PAT where it puts its key (docs/decisions.md, "Governance proxy: other wire formats"). Anything else under a
 * provider's prefix is a 404, never relayed.
 */
const ROUTES: readonly [method: 'get' | 'post' | 'delete', path: string, kind: EndpointKind][] = [
  ['post', '/v1/proxy/chat/completions', 'chat'],
  ['post', '/v1/proxy/completions', 'completions'],
  ['post', '/v1/proxy/embeddings', 'embeddings'],
  ['get', '/v1/proxy/models', 'models'],
  ['post', '/v1/proxy/responses', 'responses'],
  ['get', '/v1/proxy/responses/:id', 'responses.get'],
  ['delete', '/v1/proxy/responses/:id', 'responses.delete'],
  ['get', '/v1/proxy/responses/:id/input_items', 'responses.input_items'],
  ['post', '/v1/proxy/anthropic/v1/messages', 'anthropic.messages'],
  ['post', '/v1/proxy/anthropic/v1/messages/count_tokens', 'anthropic.count_tokens'],
  ['post', '/v1/proxy/azure/openai/deployments/:deployment/chat/completions', 'azure.chat'],
  ['post', '/v1/proxy/azure/openai/deployments/:deployment/embeddings', 'azure.embeddings'],
];

/** Where each provider's SDK puts its key, beside `Authorization: Bearer`: the PAT is read from there. */
const KEY_HEADERS: Readonly<Record<Provider, readonly string[]>> = { openai: [], anthropic: ['x-api-key'], azure: ['api-key'], gemini: ['x-goog-api-key'] };
/** The headers each provider's routes read (the OpenAI ones fewer: fewer names to match in every head). */
const HEADERS: Readonly<Record<Provider, readonly string[]>> = { openai: OPENAI_PROXY_HEADERS, anthropic: PROXY_HEADERS, azure: PROXY_HEADERS, gemini: PROXY_HEADERS };

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
export function registerProxyRoutes(server: HttpServer, handler: ProxyPipeline, providers: ReadonlySet<Provider>): void {
  for (const [method, path, kind] of ROUTES) {
    const endpoint = ENDPOINTS[kind];
    const p = endpoint.provider;
    // A provider with no upstream configured (Azure has no default) has no routes: its paths are the 404 below.
    if (!providers.has(p)) continue;
    server.route(method, path, { auth: 'pat', scope: 'runtime:write', refusedBy: 'handler', keyHeaders: KEY_HEADERS[p], body: 'none', headers: HEADERS[p] }, (ctx) =>
      handler.handle(ctx, endpoint).then(answered),
    );
  }
  // Gemini names the model and the call in one segment (`gemini-2.0-flash:generateContent`): one route, the endpoint
  // picked by the call; a call that is not proxied is a 404, never relayed.
  if (providers.has('gemini')) {
    const options = { auth: 'pat', scope: 'runtime:write', refusedBy: 'handler', keyHeaders: KEY_HEADERS.gemini, body: 'none', headers: HEADERS.gemini } as const;
    server.route('post', '/v1/proxy/gemini/:version/models/:call', options, (ctx) => {
      const endpoint = geminiEndpoint(ctx.params[1] ?? '');
      // A caller the guard refused hears that first, whatever it asked for.
      if (endpoint === null && ctx.refusal !== null) throw ctx.refusal.thrown;
      if (endpoint === null) {
        const message = 'this Gemini call is not proxied (generateContent, streamGenerateContent, countTokens, embedContent, batchEmbedContents are)';
        throw new GatewayError('route_not_found', message, '', NOT_PROXIED_HEADERS);
      }
      return handler.handle(ctx, endpoint).then(answered);
    });
  }
  // Not the proxy: a 404 naming what is proxied, to anyone, with the verdict headers of every proxy answer; so do the
  // server's own 404 and 405 under the prefix (other methods).
  server.route('post', '/v1/proxy/*', { auth: 'public', body: 'none' }, () => {
    throw new GatewayError(
      'route_not_found',
      'this provider endpoint is not proxied (chat/completions, completions, embeddings, models, responses; anthropic/v1/messages and its count_tokens; azure/openai/deployments/{d}/chat/completions and embeddings, with UPSTREAM_AZURE_BASE_URL set, are)',
      '',
      NOT_PROXIED_HEADERS,
    );
  });
  server.fallbackHeadersUnder('/v1/proxy/', NOT_PROXIED_HEADERS);
}
