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
]);

export const SESSION_ID = 0;
export const FORWARDED_AUTHORIZATION = 1;
export const PROVIDER_ORGANIZATION = 2;
export const PROVIDER_PROJECT = 3;
