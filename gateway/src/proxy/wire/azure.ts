import { GatewayError } from '../../errors.js';
import type { AnswerFormat } from '../formats/answer-format.js';
import { OPENAI_CHAT, OPENAI_EMBEDDINGS } from '../formats/openai-answers.js';
import { openaiChatMedia, type MediaLocator } from '../formats/request-media.js';
import type { ProxyContext } from '../proxy-context.js';
import { FORWARDED_API_KEY, PROXY_HEADERS } from '../proxy-headers.js';
import { chatBody, embeddingsBody, openaiErrorBody } from './openai.js';
import { defineWireFormat, type EndpointSpec } from './wire-format.js';

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** An Azure deployment's name and an API version: what Azure accepts, nothing that could change the URL's shape. */
const DEPLOYMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const API_VERSION = /^[0-9]{4}-[0-9]{2}-[0-9]{2}(-preview)?$/;

/**
 * An Azure endpoint: OpenAI's body and answers under `/openai/deployments/{deployment}/…?api-version=…`; the
 * deployment comes from the route, the api-version from the query, each checked before it goes into the upstream URL.
 */
function azure<K extends string>(
  kind: K,
  suffix: string,
  eventType: string,
  format: AnswerFormat,
  validate: (req: Record<string, unknown>, c: ProxyContext) => void,
  asksStreamUsage: boolean,
  requestMedia?: MediaLocator,
): EndpointSpec<K> {
  return {
    kind,
    route: ['post', `/v1/proxy/azure/openai/deployments/:deployment${suffix}`],
    upstreamPath: suffix,
    eventType,
    governed: true,
    format,
    ...(requestMedia ? { requestMedia } : {}),
    asksStreamUsage,
    validate,
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

/**
 * Azure OpenAI, only when UPSTREAM_AZURE_BASE_URL is set: chat completions and embeddings of a deployment, in OpenAI's
 * bodies, answers and error shape. The SDK's key header is `api-key`; the client's own key arrives in
 * `x-forwarded-api-key`.
 */
export const AZURE = defineWireFormat(
  {
    provider: 'azure',
    upstream: (config) => (config.upstreamAzureBaseUrl ? { baseUrl: config.upstreamAzureBaseUrl, apiKey: config.upstreamAzureApiKey } : null),
    upstreamKeyHeader: 'api-key',
    keyHeaders: ['api-key'],
    headers: PROXY_HEADERS,
    forwardedKeyAt: FORWARDED_API_KEY,
    passHeaders: () => NO_HEADERS,
    errorBody: openaiErrorBody,
  },
  [
    azure('azure.chat', '/chat/completions', 'proxy.azure.chat.completions', OPENAI_CHAT, chatBody, true, openaiChatMedia),
    azure('azure.embeddings', '/embeddings', 'proxy.azure.embeddings', OPENAI_EMBEDDINGS, embeddingsBody, false),
  ],
);
