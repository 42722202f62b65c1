import { NetGuardError } from '@aduana/shared';

/** The `Probe.error` codes (snapshot.ts). */
export type ProbeErrorCode = 'timeout' | 'refused' | 'dns' | 'tls' | 'blocked' | 'too_large' | 'network' | 'redirect_limit';

const TIMEOUT = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const REFUSED = new Set(['ECONNREFUSED']);
const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA']);
const TOO_LARGE = new Set(['UND_ERR_HEADERS_OVERFLOW', 'UND_ERR_RES_EXCEEDED_MAX_SIZE']);
// OpenSSL verification codes, for when a caller turns certificate checking on.
const TLS_VERIFY = /^(CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|HOSTNAME_MISMATCH|ERR_TLS_|ERR_SSL_)/;

/**
 * Maps whatever undici, node:net/tls or the guard threw to a stable probe code. Walks `cause` and AggregateError
 * members (undici and happy-eyeballs wrap the socket error). A time-out signalled by our own AbortSignal is decided
 * by the caller, which knows which signal fired.
 */
export function probeErrorCode(error: unknown): ProbeErrorCode {
  if (error instanceof NetGuardError) return error.code === 'dns' ? 'dns' : 'blocked';
  for (const code of errorCodes(error, 0)) {
    if (TIMEOUT.has(code)) return 'timeout';
    if (REFUSED.has(code)) return 'refused';
    if (DNS.has(code)) return 'dns';
    if (TOO_LARGE.has(code)) return 'too_large';
    if (TLS_VERIFY.test(code)) return 'tls';
  }
  return 'network';
}

function errorCodes(error: unknown, depth: number): string[] {
  if (depth > 5 || typeof error !== 'object' || error === null) return [];
  const codes: string[] = [];
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') codes.push(code);
  if (error instanceof NetGuardError) codes.push(error.code === 'dns' ? 'ENOTFOUND' : 'BLOCKED');
  codes.push(...errorCodes(cause, depth + 1));
  if (Array.isArray(errors)) for (const inner of errors) codes.push(...errorCodes(inner, depth + 1));
  return codes;
}
