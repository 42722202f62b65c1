import { GatewayError } from '../errors.js';
import type { RequestContext } from '../http/request-context.js';
import type { AnswerFormat } from './formats/answer-format.js';
import { ANTHROPIC_COUNT_TOKENS, ANTHROPIC_MESSAGES } from './formats/anthropic-messages.js';
import { GEMINI, GEMINI_NO_TEXT } from './formats/gemini.js';
import { OPENAI_CHAT, OPENAI_COMPLETIONS, OPENAI_EMBEDDINGS } from './formats/openai-answers.js';
import { OPENAI_RESPONSE_DELETED, OPENAI_RESPONSE_INPUT_ITEMS, OPENAI_RESPONSE_STORED, OPENAI_RESPONSES } from './formats/openai-responses.js';
import { anthropicMedia, geminiMedia, openaiChatMedia, openaiResponsesMedia, type MediaLocator } from './formats/request-media.js';

/** The providers the proxy speaks to, each with its own upstream (base URL, key and how the key is sent). */
export type Provider = 'openai' | 'anthropic' | 'azure' | 'gemini';

/** The proxied provider endpoints (docs/decisions.md, "Governance proxy"). */
export type EndpointKind = 'chat' | 'completions' | 'embeddings' | 'models'
  | 'responses'
  | 'responses.get'
  | 'responses.delete'
  | 'responses.input_items'
  | 'anthropic.messages' | 'anthropic.count_tokens' | 'azure.chat' | 'azure.embeddings'
  | 'gemini.generateContent'
  | 'gemini.streamGenerateContent'
  | 'gemini.countTokens'
  | 'gemini.embedContent'
  | 'gemini.batchEmbedContents';

export interface Endpoint {
  readonly kind: EndpointKind;
  readonly provider: Provider;
  /** The upstream request's method (default POST). */
  readonly method?: 'GET' | 'DELETE';
  /**
   * It reads a response the provider stored (by the id in its path): only the tenant whose call made it may, and its
   * answer's texts are redacted as an answer's (docs/decisions.md, "Stored responses").
   */
  readonly readsStored?: boolean;
  /** Path below the provider's upstream base URL. */
  readonly upstreamPath: string;
  /**
   * The path when it depends on the request (Azure's deployment and api-version), checked before anything is judged:
   * throws a GatewayError for what must not reach a URL.
   */
  readonly pathOf?: (http: RequestContext) => string;
  /** The model, when the path names it rather than the body (Gemini). */
  readonly modelOf?: (http: RequestContext) => string;
  /** What to record as the model when the body names none (Azure: the deployment, which picks the model). */
  readonly fallbackModelOf?: (http: RequestContext) => string;
  /** The call streams whatever its body says (Gemini's streamGenerateContent). */
  readonly streams?: boolean;
  /** Ledger event type of a call. */
  readonly eventType: string;
  /** Full governance, or a passthrough (models). */
  readonly governed: boolean;
  /** Where its answers, whole or streamed, carry text and usage. */
  readonly format: AnswerFormat;
  /** Where its requests' schema puts media (images, audio, files, provider ciphertext); none when absent. */
  readonly requestMedia?: MediaLocator;
  /** A stream reports usage only when asked (OpenAI's `stream_options.include_usage`): the proxy asks for it. */
  readonly asksStreamUsage: boolean;
}

export const ENDPOINTS: Readonly<Record<EndpointKind, Endpoint>> = {
  chat: { kind: 'chat', provider: 'openai', upstreamPath: '/chat/completions', eventType: 'proxy.chat.completions', governed: true, format: OPENAI_CHAT, requestMedia: openaiChatMedia, asksStreamUsage: true },
  completions: { kind: 'completions', provider: 'openai', upstreamPath: '/completions', eventType: 'proxy.completions', governed: true, format: OPENAI_COMPLETIONS, asksStreamUsage: true },
  embeddings: { kind: 'embeddings', provider: 'openai', upstreamPath: '/embeddings', eventType: 'proxy.embeddings', governed: true, format: OPENAI_EMBEDDINGS, asksStreamUsage: false },
  models: { kind: 'models', provider: 'openai', method: 'GET', upstreamPath: '/models', eventType: 'proxy.models', governed: false, format: OPENAI_EMBEDDINGS, asksStreamUsage: false },
  responses: { kind: 'responses', provider: 'openai', upstreamPath: '/responses', eventType: 'proxy.responses', governed: true, format: OPENAI_RESPONSES, requestMedia: openaiResponsesMedia, asksStreamUsage: false },
  'responses.get': storedResponse('responses.get', 'GET', '', OPENAI_RESPONSE_STORED),
  'responses.delete': storedResponse('responses.delete', 'DELETE', '', OPENAI_RESPONSE_DELETED),
  'responses.input_items': storedResponse('responses.input_items', 'GET', '/input_items', OPENAI_RESPONSE_INPUT_ITEMS),
  'anthropic.messages': {
    kind: 'anthropic.messages',
    provider: 'anthropic',
    upstreamPath: '/v1/messages',
    eventType: 'proxy.anthropic.messages',
    governed: true,
    format: ANTHROPIC_MESSAGES,
    requestMedia: anthropicMedia,
    asksStreamUsage: false,
  },
  // The prompt is read by the provider here too: judged and redacted like a message.
  'anthropic.count_tokens': {
    kind: 'anthropic.count_tokens',
    provider: 'anthropic',
    upstreamPath: '/v1/messages/count_tokens',
    eventType: 'proxy.anthropic.count_tokens',
    governed: true,
    format: ANTHROPIC_COUNT_TOKENS,
    requestMedia: anthropicMedia,
    asksStreamUsage: false,
  },
  'azure.chat': azure('azure.chat', '/chat/completions', 'proxy.azure.chat.completions', OPENAI_CHAT, true, openaiChatMedia),
  'azure.embeddings': azure('azure.embeddings', '/embeddings', 'proxy.azure.embeddings', OPENAI_EMBEDDINGS, false),
  'gemini.generateContent': gemini('generateContent', GEMINI, false),
  'gemini.streamGenerateContent': gemini('streamGenerateContent', GEMINI, true),
  'gemini.countTokens': gemini('countTokens', GEMINI_NO_TEXT, false),
  'gemini.embedContent': gemini('embedContent', GEMINI_NO_TEXT, false),
  'gemini.batchEmbedContents': gemini('batchEmbedContents', GEMINI_NO_TEXT, false),
};

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
function storedResponse(kind: EndpointKind, method: 'GET' | 'DELETE', suffix: string, format: AnswerFormat): Endpoint {
  return {
    kind,
    provider: 'openai',
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

/** A Gemini model id as the path names it, and the API versions the SDK speaks. */
const GEMINI_MODEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const GEMINI_VERSIONS: ReadonlySet<string> = new Set(['v1', 'v1beta']);

/** The route's `{model}:{method}` segment: the model, checked before it goes into the upstream URL. */
function geminiModel(http: RequestContext): string {
  const call = http.params[1] ?? '';
  const model = call.slice(0, call.lastIndexOf(':'));
  if (!GEMINI_MODEL.test(model)) throw new GatewayError('invalid_request', 'model: letters, digits, . _ - (at most 128)');
  return model;
}

/** Gemini's calls: `/{version}/models/{model}:{method}`, the stream with `alt=sse`. */
function gemini(method: string, format: AnswerFormat, streams: boolean): Endpoint {
  return {
    kind: `gemini.${method}` as EndpointKind,
    provider: 'gemini',
    upstreamPath: '',
    eventType: `proxy.gemini.${method}`,
    governed: true,
    format,
    requestMedia: geminiMedia,
    asksStreamUsage: false,
    streams,
    modelOf: geminiModel,
    pathOf(http) {
      const version = http.params[0] ?? '';
      if (!GEMINI_VERSIONS.has(version)) throw new GatewayError('route_not_found', 'gemini: v1 or v1beta');
      return `/${version}/models/${geminiModel(http)}:${method}${streams ? '?alt=sse' : ''}`;
    },
  };
}

/** The Gemini endpoint of a route's `{model}:{method}` segment, or null for a method that is not proxied. */
export function geminiEndpoint(call: string): Endpoint | null {
  const method = call.slice(call.lastIndexOf(':') + 1);
  const kind = `gemini.${method}`;
  return call.includes(':') && kind in ENDPOINTS && kind.startsWith('gemini.') ? ENDPOINTS[kind as EndpointKind] : null;
}

/** An Azure deployment's name and an API version: what Azure accepts, nothing that could change the URL's shape. */
const DEPLOYMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const API_VERSION = /^[0-9]{4}-[0-9]{2}-[0-9]{2}(-preview)?$/;

/**
 * Azure OpenAI: OpenAI's formats under `/openai/deployments/{deployment}/…?api-version=…`; the deployment comes from
 * the route, the api-version from the query, each checked before it goes into the upstream URL.
 */
function azure(kind: EndpointKind, suffix: string, eventType: string, format: AnswerFormat, asksStreamUsage: boolean, requestMedia?: MediaLocator): Endpoint {
  return {
    kind,
    provider: 'azure',
    upstreamPath: suffix,
    eventType,
    governed: true,
    format,
    ...(requestMedia ? { requestMedia } : {}),
    asksStreamUsage,
    fallbackModelOf: (http) => http.params[0] ?? '',
    pathOf(http) {
      const deployment = http.params[0] ?? '';
      if (!DEPLOYMENT.test(deployment)) throw new GatewayError('invalid_request', 'deployment: letters, digits, . _ - (at most 64)');
      const version = http.query.get('api-version') ?? '';
      if (!API_VERSION.test(version)) throw new GatewayError('invalid_request', 'api-version: required, as YYYY-MM-DD or YYYY-MM-DD-preview');
      return `/openai/deployments/${deployment}${suffix}?api-version=${version}`;
    },
  };
}
