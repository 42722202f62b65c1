import type { Json, TranslatedError } from './chat-translator.js';

interface Mapped {
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
}

/**
 * Anthropic's error types (docs.anthropic.com, "Errors") as OpenAI's: the status the OpenAI SDKs pick their error
 * class by, OpenAI's type for it, and a code where OpenAI has a stable one. `overloaded_error` (Anthropic's own 529)
 * becomes 503, the standard status for a provider that is up but cannot take the call now: every HTTP client and
 * the SDKs' retries know it, and the SDKs raise both as InternalServerError.
 */
const BY_TYPE: Readonly<Record<string, Mapped>> = {
  invalid_request_error: { status: 400, type: 'invalid_request_error', code: null },
  authentication_error: { status: 401, type: 'authentication_error', code: 'invalid_api_key' },
  billing_error: { status: 402, type: 'billing_error', code: 'insufficient_quota' },
  permission_error: { status: 403, type: 'permission_error', code: null },
  not_found_error: { status: 404, type: 'not_found_error', code: null },
  conflict_error: { status: 409, type: 'conflict_error', code: null },
  request_too_large: { status: 413, type: 'invalid_request_error', code: 'request_too_large' },
  rate_limit_error: { status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  api_error: { status: 500, type: 'server_error', code: null },
  timeout_error: { status: 504, type: 'server_error', code: 'timeout' },
  overloaded_error: { status: 503, type: 'server_error', code: 'overloaded' },
};

/** An answer of another status, by its class. */
function byStatus(status: number): Mapped {
  if (status === 529) return BY_TYPE['overloaded_error'] as Mapped;
  return status >= 500 ? { status, type: 'server_error', code: null } : { status, type: 'invalid_request_error', code: null };
}

/** Anthropic's `{type: 'error', error: {type, message}}`'s inner error, null when the body is not that shape. */
function innerError(body: unknown): Json | null {
  if (body === null || typeof body !== 'object') return null;
  const e = (body as Json)['error'];
  return e !== null && typeof e === 'object' && !Array.isArray(e) ? (e as Json) : null;
}

function translated(m: Mapped, status: number, message: string): TranslatedError {
  return { status, body: { error: { message, type: m.type, param: null, code: m.code } } };
}

/**
 * An Anthropic error answer as OpenAI's. The HTTP status decides the class (a 529 becomes 503); the body's error type
 * names OpenAI's type and code when it is one Anthropic documents for that status; its message is kept.
 */
export function anthropicErrorAnswer(status: number, body: unknown): TranslatedError {
  const inner = innerError(body);
  const message = typeof inner?.['message'] === 'string' ? inner['message'] : `Anthropic answered ${status}`;
  const known = typeof inner?.['type'] === 'string' ? BY_TYPE[inner['type']] : undefined;
  const outStatus = status === 529 ? 503 : status;
  const m = known !== undefined && known.status === outStatus ? known : byStatus(status);
  return translated(m, outStatus, message);
}

/** A stream's `error` event (no HTTP status of its own: its type says which it would have been). */
export function anthropicStreamError(data: Json): TranslatedError {
  const inner = innerError(data);
  const message = typeof inner?.['message'] === 'string' ? inner['message'] : 'Anthropic ended the stream with an error';
  const m = (typeof inner?.['type'] === 'string' ? BY_TYPE[inner['type']] : undefined) ?? (BY_TYPE['api_error'] as Mapped);
  return translated(m, m.status, message);
}
