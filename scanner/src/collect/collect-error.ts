import type { PageProbe } from '../snapshot/snapshot.js';

/**
 * The page itself could not be had: `timeout` (no answer within the time-out) or `unreachable` (refused, DNS,
 * TLS handshake, reset, too many redirects, a redirect to a non-http(s) URL). The route answers 502 for both.
 * A destination the guard refuses is not a CollectError: it is the NetGuardError itself (code 'blocked' or
 * 'invalid_url', answered 400).
 */
export type CollectErrorCode = 'unreachable' | 'timeout';

export class CollectError extends Error {
  override readonly name = 'CollectError';

  constructor(
    readonly code: CollectErrorCode,
    message: string,
    /** What the page fetch saw (its `error` says why), for logs. */
    readonly page: PageProbe,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
