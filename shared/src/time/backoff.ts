/** How a loop that retries waits after consecutive failures. */
export interface BackoffOptions {
  readonly baseMs: number;
  readonly maxMs: number;
  /** A random time in [d/2, d] in place of d, so clients that lost a server together do not return in step. */
  readonly jitter: boolean;
  readonly random?: () => number;
}

/**
 * Capped exponential backoff, the gateway's one formula for it: after the n-th consecutive failure (n ≥ 1) wait
 * d = min(maxMs, baseMs · 2^(n−1)); with jitter, a random time in [d/2, d], rounded to the millisecond. The callers
 * are loops that never give up and keep their own count of failures (they report it), which is why this is a formula
 * and not a retrying wrapper around one call.
 */
export function backoffMs(failures: number, o: BackoffOptions): number {
  const d = Math.min(o.maxMs, o.baseMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
  if (!o.jitter) return d;
  return Math.round(d / 2 + (o.random ?? Math.random)() * (d / 2));
}
