/**
 * Why the guard refused a destination. Stable codes, so callers map them without reading messages:
 * - `invalid_url`: not an absolute http(s) URL, or it carries credentials;
 * - `blocked`: the address (or one of the host's addresses) is not public and not allow-listed;
 * - `dns`: the host name did not resolve.
 */
export type NetGuardErrorCode = 'blocked' | 'dns' | 'invalid_url';

export class NetGuardError extends Error {
  override readonly name = 'NetGuardError';

  constructor(
    readonly code: NetGuardErrorCode,
    message: string,
    /** The URL (or host) refused, for logs and error bodies; never contains credentials (those are refused). */
    readonly target: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export function isNetGuardError(error: unknown): error is NetGuardError {
  return error instanceof NetGuardError;
}
