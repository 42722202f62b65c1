import type { TranslatedError } from './chat-translator.js';

type ErrorFields = TranslatedError['body']['error'];

/** Google's canonical statuses as the HTTP status the OpenAI SDKs raise their classes on. */
const STATUSES: Readonly<Record<string, number>> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ABORTED: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  INTERNAL: 500,
  UNKNOWN: 500,
  DATA_LOSS: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/** Google's reasons for a key it refuses: it answers 400 INVALID_ARGUMENT, OpenAI 401 (the SDKs' AuthenticationError). */
const KEY_REASONS = new Set(['API_KEY_INVALID', 'API_KEY_EXPIRED']);

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The ErrorInfo `reason` among an error's details, or null. */
function reasonOf(error: Json): string | null {
  const details = error['details'];
  if (!Array.isArray(details)) return null;
  for (const d of details) if (isObject(d) && typeof d['reason'] === 'string') return d['reason'];
  return null;
}

/** OpenAI's `type` for a status (the SDKs choose the class by status; `type` is what agents log and match on). */
function typeOf(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/**
 * Google's error (`{error: {code, message, status, details}}`, or that object first in an array, as the non-SSE
 * stream sends it) as OpenAI's. The status is the HTTP status Google answered, or its canonical status's when that
 * was not an error status; a refused API key is 401. `code` is `invalid_api_key` or `rate_limit_exceeded` as OpenAI
 * names them, else Google's status in lower case.
 */
export function geminiError(status: number, body: unknown): TranslatedError {
  const envelope = Array.isArray(body) ? body[0] : body;
  const error = isObject(envelope) && isObject(envelope['error']) ? envelope['error'] : null;
  const google = error && typeof error['status'] === 'string' ? error['status'] : null;
  const reason = error ? reasonOf(error) : null;
  let out = status >= 400 && status <= 599 ? status : (google !== null ? STATUSES[google] : undefined) ?? 502;
  if (reason !== null && KEY_REASONS.has(reason)) out = 401;
  let code: string | null = google ? google.toLowerCase() : null;
  if (out === 401) code = 'invalid_api_key';
  else if (out === 429) code = 'rate_limit_exceeded';
  const message = error && typeof error['message'] === 'string' && error['message'] !== '' ? error['message'] : `Gemini answered ${status}`;
  const fields: ErrorFields = { message, type: typeOf(out), param: null, code };
  return { status: out, body: { error: fields } };
}
