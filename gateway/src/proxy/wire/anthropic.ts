import { GatewayError } from '../../errors.js';
import { ANTHROPIC_COUNT_TOKENS, ANTHROPIC_MESSAGES, anthropicError } from '../formats/anthropic-messages.js';
import { anthropicMedia } from '../formats/request-media.js';
import type { ProxyContext } from '../proxy-context.js';
import { ANTHROPIC_BETA, ANTHROPIC_VERSION, FORWARDED_API_KEY, PROXY_HEADERS } from '../proxy-headers.js';
import { assertMessages } from './body-checks.js';
import { defineWireFormat } from './wire-format.js';

type Json = Record<string, unknown>;

/** A message: its messages, and the answer's length the API requires. */
function messagesBody(req: Json): void {
  assertMessages(req['messages']);
  if (!Number.isInteger(req['max_tokens']) || (req['max_tokens'] as number) < 1) throw new GatewayError('invalid_request', 'max_tokens: required positive integer');
}

/** count_tokens: the messages it would count, never streamed. */
function countTokensBody(req: Json, c: ProxyContext): void {
  assertMessages(req['messages']);
  if (c.stream) throw new GatewayError('invalid_request', 'stream: count_tokens does not stream');
}

/** `anthropic-version` and `anthropic-beta`, passed on whoever's key goes out. */
function anthropicHeaders(values: readonly string[]): Readonly<Record<string, string>> {
  const h: Record<string, string> = {};
  const version = values[ANTHROPIC_VERSION] ?? '';
  const beta = values[ANTHROPIC_BETA] ?? '';
  if (version) h['anthropic-version'] = version;
  if (beta) h['anthropic-beta'] = beta;
  return h;
}

/**
 * Anthropic's Messages API under /v1/proxy/anthropic (its SDK's base URL). The SDK's key header is `x-api-key`; the
 * client's own key arrives in `x-forwarded-api-key` and goes out as `x-api-key`. Refusals answer in Anthropic's error
 * shape, which its SDK raises with our message and type.
 */
export const ANTHROPIC = defineWireFormat(
  {
    provider: 'anthropic',
    upstream: (config) => ({ baseUrl: config.upstreamAnthropicBaseUrl, apiKey: config.upstreamAnthropicApiKey }),
    upstreamKeyHeader: 'x-api-key',
    keyHeaders: ['x-api-key'],
    headers: PROXY_HEADERS,
    forwardedKeyAt: FORWARDED_API_KEY,
    passHeaders: anthropicHeaders,
    errorBody: (_status, ours) => anthropicError(ours),
  },
  [
    {
      kind: 'anthropic.messages',
      route: ['post', '/v1/proxy/anthropic/v1/messages'],
      upstreamPath: '/v1/messages',
      eventType: 'proxy.anthropic.messages',
      governed: true,
      format: ANTHROPIC_MESSAGES,
      requestMedia: anthropicMedia,
      asksStreamUsage: false,
      validate: messagesBody,
    },
    // The prompt is read by the provider here too: judged and redacted like a message.
    {
      kind: 'anthropic.count_tokens',
      route: ['post', '/v1/proxy/anthropic/v1/messages/count_tokens'],
      upstreamPath: '/v1/messages/count_tokens',
      eventType: 'proxy.anthropic.count_tokens',
      governed: true,
      format: ANTHROPIC_COUNT_TOKENS,
      requestMedia: anthropicMedia,
      asksStreamUsage: false,
      validate: countTokensBody,
    },
  ],
);
