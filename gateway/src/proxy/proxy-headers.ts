/**
 * The request headers the proxy routes declare, beyond what every route reads. The HTTP layer keeps their values in
 * this order (RequestContext.headerValues), so the proxy reads them by position.
 */
export const PROXY_HEADERS: readonly string[] = Object.freeze([
  // The session bond enforcement accumulates risk over ('' = the agent's).
  'x-svc-session-id',
  // The client's own provider key, forwarded instead of the sidecar's.
  'x-forwarded-authorization',
  // Provider routing headers passed on (docs/sidecar.md).
  'openai-organization',
  'openai-project',
  // Anthropic: the client's own key for a provider that reads x-api-key, and the headers the API needs.
  'x-forwarded-api-key',
  'anthropic-version',
  'anthropic-beta',
]);

export const SESSION_ID = 0;
export const FORWARDED_AUTHORIZATION = 1;
export const PROVIDER_ORGANIZATION = 2;
export const PROVIDER_PROJECT = 3;
export const FORWARDED_API_KEY = 4;
export const ANTHROPIC_VERSION = 5;
export const ANTHROPIC_BETA = 6;

/** The OpenAI routes read only the first four: fewer names to match in every request's head. */
export const OPENAI_PROXY_HEADERS: readonly string[] = Object.freeze(PROXY_HEADERS.slice(0, 4));
