/**
 * The gateway's one error registry. Every error the governance API, the proxy and the authentication service answer
 * with is listed here, and `toEnvelope` is the only place that turns one into the documented wire format (docs/decisions.md, "Errors"):
 * `{error: {code, type, message, rule, traceId}}` (code = HTTP status; rule = '' when no rule applies).
 */
export const ERRORS = {
  invalid_json: { status: 400, type: 'invalid_request', message: 'request body is not valid JSON' },
  invalid_request: { status: 400, type: 'invalid_request', message: 'request is invalid' },
  missing_agent_id: { status: 400, type: 'invalid_request', message: 'name the agent: an x-svc-agent-id header, a token bound to the agent, or the sidecar\'s SIDECAR_AGENT_ID' },
  unauthenticated: { status: 401, type: 'authentication_error', message: 'missing or invalid Authorization header' },
  token_expired: { status: 401, type: 'authentication_error', message: 'token has expired' },
  token_revoked: { status: 401, type: 'authentication_error', message: 'token has been revoked' },
  invalid_credentials: { status: 401, type: 'authentication_error', message: 'invalid email or password' },
  session_required: { status: 401, type: 'authentication_error', message: 'this needs a login session' },
  identity_provider_refused: { status: 401, type: 'authentication_error', message: 'sign-in with the identity provider failed' },
  missing_scope: { status: 403, type: 'permission_denied', message: 'token lacks the required scope' },
  self_service_disabled: { status: 403, type: 'permission_denied', message: "self-service token creation in the console is disabled for enterprise tenants: their tokens are issued by their account manager (POST /token with an admin token, or aduana token create)" },
  agent_mismatch: { status: 403, type: 'permission_denied', message: 'token is bound to another agent' },
  csrf_failed: { status: 403, type: 'permission_denied', message: 'missing or invalid CSRF token' },
  user_not_allowed: { status: 403, type: 'permission_denied', message: 'this identity may not be provisioned here' },
  sidecar_scope: { status: 403, type: 'permission_denied', message: "the sidecar token does not cover this tenant" },
  chain_bound: { status: 403, type: 'permission_denied', message: 'the ledger chain is bound to another sidecar token' },
  tenant_mismatch: { status: 403, type: 'permission_denied', message: 'tenant does not match the token' },
  agent_suspended: { status: 403, type: 'svc_policy_violation', message: 'agent is suspended' },
  agent_unregistered: { status: 403, type: 'permission_denied', message: 'agent is not registered' },
  agent_limit: { status: 403, type: 'permission_denied', message: 'tenant has as many agents as it may register' },
  policy_violation: { status: 403, type: 'svc_policy_violation', message: 'request blocked by policy' },
  not_found: { status: 404, type: 'not_found', message: 'resource not found' },
  identity_provider_off: { status: 404, type: 'not_found', message: 'sign-in with an identity provider is not configured' },
  route_not_found: { status: 404, type: 'not_found', message: 'no such route' },
  ledger_pruned: { status: 410, type: 'not_found', message: 'the ledger entry was removed by retention (LEDGER_RETENTION_DAYS)' },
  method_not_allowed: { status: 405, type: 'invalid_request', message: 'method not allowed on this route' },
  conflict: { status: 409, type: 'invalid_request', message: 'resource is not in a state that allows this' },
  sidecar_read_only: { status: 409, type: 'invalid_request', message: 'this gateway is a sidecar: make changes at its control plane' },
  chain_forked: { status: 409, type: 'invalid_request', message: 'the shipped entries fork a chain the control plane already holds' },
  payload_too_large: { status: 413, type: 'payload_too_large', message: 'request body is too large' },
  evaluation_timeout: { status: 413, type: 'payload_too_large', message: 'request text could not be judged in time' },
  text_too_large: { status: 413, type: 'payload_too_large', message: "request text is longer than the tenant's policies may judge" },
  chain_invalid: { status: 422, type: 'invalid_request', message: 'the shipped entries or checkpoints do not verify' },
  unsupported_media_type: { status: 415, type: 'invalid_request', message: 'request body must be application/json' },
  rate_limited: { status: 429, type: 'rate_limit_exceeded', message: 'rate limit exceeded' },
  tenant_bytes_in_flight: { status: 429, type: 'rate_limit_exceeded', message: "too many request body bytes in flight for this tenant; retry shortly" },
  evaluation_time_exceeded: { status: 429, type: 'rate_limit_exceeded', message: 'tenant used up its policy-evaluation time' },
  login_throttled: { status: 429, type: 'rate_limit_exceeded', message: 'too many failed logins; retry later' },
  login_busy: { status: 429, type: 'rate_limit_exceeded', message: 'too many sign-ins in progress; retry shortly' },
  internal: { status: 500, type: 'internal_error', message: 'internal server error' },
  policy_set_invalid: { status: 500, type: 'internal_error', message: "the tenant's policy set cannot be compiled; change its policies" },
  upstream_error: { status: 502, type: 'upstream_error', message: 'upstream returned a broken answer' },
  upstream_unavailable: { status: 503, type: 'upstream_unavailable', message: 'upstream LLM provider unavailable' },
  upstream_unreachable: { status: 502, type: 'upstream_unavailable', message: 'the upstream LLM provider could not be reached' },
  upstream_timeout: { status: 504, type: 'upstream_unavailable', message: 'the upstream LLM provider did not answer in time' },
  route_not_servable: { status: 400, type: 'invalid_request', message: "this model's route cannot serve a call in this format" },
  identity_provider_unavailable: { status: 503, type: 'upstream_unavailable', message: 'the identity provider cannot be reached' },
  ledger_busy: { status: 503, type: 'upstream_unavailable', message: 'the ledger is behind its disk; retry shortly' },
  shutting_down: { status: 503, type: 'upstream_unavailable', message: 'gateway is shutting down' },
  request_log_key_missing: { status: 503, type: 'upstream_unavailable', message: 'the request log cannot be enabled: this gateway has no REQUEST_LOG_KEY' },
  credentials_key_missing: { status: 503, type: 'upstream_unavailable', message: 'provider credentials cannot be stored: this gateway has no CREDENTIALS_KEY (64 hexadecimal characters)' },
  no_bundle: { status: 503, type: 'upstream_unavailable', message: 'this sidecar has not received a bundle from its control plane yet' },
  server_busy: { status: 503, type: 'upstream_unavailable', message: 'gateway is busy reading other request bodies; retry shortly' },
} as const satisfies Record<string, { status: number; type: string; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

export class GatewayError extends Error {
  readonly status: number;
  readonly type: string;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    /** The rule (policy id) that caused it, for policy blocks. */
    readonly rule = '',
    /** Extra response headers (Retry-After, …). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    const def = ERRORS[code];
    super(message ?? def.message);
    this.name = 'GatewayError';
    this.status = def.status;
    this.type = def.type;
  }
}

export interface ErrorEnvelope {
  error: { code: number; type: string; message: string; rule: string; traceId: string };
}

/** Wire format of any thrown value; unknown errors become a 500 whose message reveals nothing internal. */
export function toEnvelope(err: unknown, traceId: string): { status: number; body: ErrorEnvelope; headers?: Readonly<Record<string, string>> } {
  const e = err instanceof GatewayError ? err : new GatewayError('internal');
  const out: { status: number; body: ErrorEnvelope; headers?: Readonly<Record<string, string>> } = {
    status: e.status,
    body: { error: { code: e.status, type: e.type, message: e.message, rule: e.rule, traceId } },
  };
  if (e.headers) out.headers = e.headers;
  return out;
}
