/**
 * Capped exponential backoff with jitter for the ledger shipper: the n-th consecutive failure waits a random time in
 * [d/2, d], d = min(max, base * 2^(n-1)), so sidecars that lost the control plane together do not return in step.
 */
export function shipBackoffMs(failures: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const d = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
  return Math.round(d / 2 + random() * (d / 2));
}
