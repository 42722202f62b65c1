import { GatewayError } from '../errors.js';
import type { RequestContext } from '../http/request-context.js';
import type { AnswerFormat } from './formats/answer-format.js';
import { ANTHROPIC_COUNT_TOKENS, ANTHROPIC_MESSAGES } from './formats/anthropic-messages.js';
import { OPENAI_CHAT, OPENAI_COMPLETIONS, OPENAI_EMBEDDINGS } from './formats/openai-answers.js';

/** The providers the proxy speaks to, each with its own upstream (base URL, key and how the key is sent). */
export type Provider = 'openai' | 'anthropic' | 'azure';

/** The proxied provider endpoints (docs/decisions.md, "Governance proxy"). */
export type EndpointKind = 'chat' | 'completions' | 'embeddings' | 'models' | 'anthropic.messages' | 'anthropic.count_tokens' | 'azure.chat' | 'azure.embeddings';

export interface Endpoint {
  readonly kind: EndpointKind;
  readonly provider: Provider;
  /** Path below the provider's upstream base URL. */
  readonly upstreamPath: string;
  /**
   * The path when it depends on the request (Azure's deployment and api-version), checked before anything is judged:
   * throws a GatewayError for what must not reach a URL.
   */
  readonly pathOf?: (http: RequestContext) => string;
  /** Ledger event type of a call. */
  readonly eventType: string;
  /** Full governance, or a passthrough (models). */
  readonly governed: boolean;
  /** Where its answers, whole or streamed, carry text and usage. */
  readonly format: AnswerFormat;
  /** A stream reports usage only when asked (OpenAI's `stream_options.include_usage`): the proxy asks for it. */
  readonly asksStreamUsage: boolean;
}

export const ENDPOINTS: Readonly<Record<EndpointKind, Endpoint>> = {
  chat: { kind: 'chat', provider: 'openai', upstreamPath: '/chat/completions', eventType: 'proxy.chat.completions', governed: true, format: OPENAI_CHAT, asksStreamUsage: true },
  completions: { kind: 'completions', provider: 'openai', upstreamPath: '/completions', eventType: 'proxy.completions', governed: true, format: OPENAI_COMPLETIONS, asksStreamUsage: true },
  embeddings: { kind: 'embeddings', provider: 'openai', upstreamPath: '/embeddings', eventType: 'proxy.embeddings', governed: true, format: OPENAI_EMBEDDINGS, asksStreamUsage: false },
  models: { kind: 'models', provider: 'openai', upstreamPath: '/models', eventType: 'proxy.models', governed: false, format: OPENAI_EMBEDDINGS, asksStreamUsage: false },
  'anthropic.messages': {
    kind: 'anthropic.messages',
    provider: 'anthropic',
    upstreamPath: '/v1/messages',
    eventType: 'proxy.anthropic.messages',
    governed: true,
    format: ANTHROPIC_MESSAGES,
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
    asksStreamUsage: false,
  },
  'azure.chat': azure('azure.chat', '/chat/completions', 'proxy.azure.chat.completions', OPENAI_CHAT, true),
  'azure.embeddings': azure('azure.embeddings', '/embeddings', 'proxy.azure.embeddings', OPENAI_EMBEDDINGS, false),
};

/** An Azure deployment's name and an API version: what Azure accepts, nothing that could change the URL's shape. */
const DEPLOYMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const API_VERSION = /^[0-9]{4}-[0-9]{2}-[0-9]{2}(-preview)?$/;

/**
 * Azure OpenAI: OpenAI's formats under `/openai/deployments/{deployment}/…?api-version=…`; the deployment comes from
 * the route, the api-version from the query, each checked before it goes into the upstream URL.
 */
function azure(kind: EndpointKind, suffix: string, eventType: string, format: AnswerFormat, asksStreamUsage: boolean): Endpoint {
  return {
    kind,
    provider: 'azure',
    upstreamPath: suffix,
    eventType,
    governed: true,
    format,
    asksStreamUsage,
    pathOf(http) {
      const deployment = http.params[0] ?? '';
      if (!DEPLOYMENT.test(deployment)) throw new GatewayError('invalid_request', 'deployment: letters, digits, . _ - (at most 64)');
      const version = http.query.get('api-version') ?? '';
      if (!API_VERSION.test(version)) throw new GatewayError('invalid_request', 'api-version: required, as YYYY-MM-DD or YYYY-MM-DD-preview');
      return `/openai/deployments/${deployment}${suffix}?api-version=${version}`;
    },
  };
}
