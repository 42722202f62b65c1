import { GatewayError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { AnswerFormat } from '../formats/answer-format.js';
import { OPENAI_CHAT, OPENAI_COMPLETIONS, OPENAI_EMBEDDINGS } from '../formats/openai-answers.js';
import { OPENAI_RESPONSE_DELETED, OPENAI_RESPONSE_INPUT_ITEMS, OPENAI_RESPONSE_STORED, OPENAI_RESPONSES } from '../formats/openai-responses.js';
import { openaiChatMedia, openaiResponsesMedia } from '../formats/request-media.js';
import type { ProxyContext } from '../proxy-context.js';
import { FORWARDED_AUTHORIZATION, OPENAI_PROXY_HEADERS } from '../proxy-headers.js';
import { assertMessages, assertStringOrArray, refuseTokenIds } from './body-checks.js';
import { defineWireFormat, type EndpointSpec, type ProxyErrorBody } from './wire-format.js';

type Json = Record<string, unknown>;

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** Chat completions' body (OpenAI's and Azure's). */
export function chatBody(req: Json): void {
  assertMessages(req['messages']);
}

/** Legacy completions' body: a prompt, as text (token ids only when no input policy must read it). */
export function completionsBody(req: Json, c: ProxyContext): void {
  assertStringOrArray(req['prompt'], 'prompt');
  refuseTokenIds(req['prompt'], 'prompt', c);
}

/** Embeddings' body (OpenAI's and Azure's): an input, never streamed. */
export function embeddingsBody(req: Json, c: ProxyContext): void {
  assertStringOrArray(req['input'], 'input');
  if (c.stream) throw new GatewayError('invalid_request', 'stream: embeddings do not stream');
  refuseTokenIds(req['input'], 'input', c);
}

/** A Responses call's body: an input and what it may not ask of the provider through the gateway. */
function responsesBody(req: Json): void {
  assertStringOrArray(req['input'], 'input');
  if ('instructions' in req && req['instructions'] !== null && typeof req['instructions'] !== 'string') throw new GatewayError('invalid_request', 'instructions: must be a string');
  // The answer of a background response is read later, by polling or a webhook the gateway never sees: it would reach
  // the agent unjudged. A conversation's items were written outside the gateway, by anyone holding the provider key:
  // the model would read them unjudged, across tenants.
  if (req['background'] === true) throw new GatewayError('invalid_request', 'background: not proxied (its answer would be read outside the gateway); leave it unset');
  if (req['conversation'] !== undefined && req['conversation'] !== null) throw new GatewayError('invalid_request', 'conversation: not proxied (its items are not governed); chain turns with previous_response_id');
}

/**
 * OpenAI's error shape is the gateway's envelope already (`message`, `type`, `code`, with our `rule` and `traceId`
 * beside them): the SDK raises it with our message. Azure answers in the same shape.
 */
export function openaiErrorBody(_status: number, ours: ProxyErrorBody): object {
  return ours;
}

/** A stored response's id as the route names it (OpenAI's `resp_…`), and the list parameters its items take. */
const RESPONSE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,255}$/;
const LIST_PARAMS: ReadonlySet<string> = new Set(['limit', 'order', 'after', 'before', 'include', 'include[]']);
const LIST_VALUE = /^[A-Za-z0-9._-]{1,256}$/;

/** The route's response id, checked before it goes into the upstream URL or the store. */
export function storedResponseId(http: RequestContext): string {
  const id = http.params[0] ?? '';
  if (!RESPONSE_ID.test(id)) throw new GatewayError('invalid_request', 'response id: letters, digits, _ - (at most 256)');
  return id;
}

/**
 * A call on a response the provider stored: `/responses/{id}` and its `/input_items`. Only the list parameters the
 * API documents are passed on, each value checked; anything else in the query stays here.
 */
function storedResponse<K extends string>(kind: K, method: 'GET' | 'DELETE', suffix: string, format: AnswerFormat): EndpointSpec<K> {
  return {
    kind,
    route: [method === 'GET' ? 'get' : 'delete', `/v1/proxy/responses/:id${suffix}`],
    method,
    readsStored: true,
    upstreamPath: '',
    eventType: `proxy.${kind}`,
    governed: false,
    format,
    asksStreamUsage: false,
    pathOf(http) {
      const path = `/responses/${storedResponseId(http)}${suffix}`;
      if (suffix === '') return path;
      const q = new URLSearchParams();
      for (const [k, v] of http.query) {
        if (!LIST_PARAMS.has(k)) continue;
        if (!LIST_VALUE.test(v)) throw new GatewayError('invalid_request', `${k}: letters, digits, . _ - (at most 256)`);
        q.append(k, v);
      }
      const qs = q.toString();
      return qs === '' ? path : `${path}?${qs}`;
    },
  };
}

/**
 * OpenAI's API under /v1/proxy (its SDK's base URL): chat completions, legacy completions, embeddings, models (a
 * passthrough), Responses and the responses it stored. The client's own key arrives in `x-forwarded-authorization`
 * and goes out as `Authorization: Bearer`.
 */
export const OPENAI = defineWireFormat(
  {
    provider: 'openai',
    upstream: (config) => ({ baseUrl: config.upstreamBaseUrl, apiKey: config.upstreamApiKey }),
    upstreamKeyHeader: 'authorization',
    keyHeaders: [],
    headers: OPENAI_PROXY_HEADERS,
    forwardedKeyAt: FORWARDED_AUTHORIZATION,
    passHeaders: () => NO_HEADERS,
    errorBody: openaiErrorBody,
  },
  [
    { kind: 'chat', route: ['post', '/v1/proxy/chat/completions'], upstreamPath: '/chat/completions', eventType: 'proxy.chat.completions', governed: true, format: OPENAI_CHAT, requestMedia: openaiChatMedia, asksStreamUsage: true, validate: chatBody },
    { kind: 'completions', route: ['post', '/v1/proxy/completions'], upstreamPath: '/completions', eventType: 'proxy.completions', governed: true, format: OPENAI_COMPLETIONS, asksStreamUsage: true, validate: completionsBody },
    { kind: 'embeddings', route: ['post', '/v1/proxy/embeddings'], upstreamPath: '/embeddings', eventType: 'proxy.embeddings', governed: true, format: OPENAI_EMBEDDINGS, asksStreamUsage: false, validate: embeddingsBody },
    { kind: 'models', route: ['get', '/v1/proxy/models'], method: 'GET', upstreamPath: '/models', eventType: 'proxy.models', governed: false, format: OPENAI_EMBEDDINGS, asksStreamUsage: false },
    { kind: 'responses', route: ['post', '/v1/proxy/responses'], upstreamPath: '/responses', eventType: 'proxy.responses', governed: true, format: OPENAI_RESPONSES, requestMedia: openaiResponsesMedia, asksStreamUsage: false, validate: responsesBody },
    storedResponse('responses.get', 'GET', '', OPENAI_RESPONSE_STORED),
    storedResponse('responses.delete', 'DELETE', '', OPENAI_RESPONSE_DELETED),
    storedResponse('responses.input_items', 'GET', '/input_items', OPENAI_RESPONSE_INPUT_ITEMS),
  ],
);
