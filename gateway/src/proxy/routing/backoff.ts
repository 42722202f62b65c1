/**
 * How long to wait before attempt `n` (1 = the first retry): full jitter (AWS's "Exponential Backoff and Jitter"), a
 * random time between 0 and min(max, base · 2^(n−1)), so that agents retrying together do not retry in step.
 */
export function backoffMs(n: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, n - 1));
  return Math.floor(random() * ceiling);
}

const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * A Retry-After value in milliseconds (RFC 9110, 10.2.3: delay-seconds or an HTTP-date), or null when absent or not
 * understood.
 */
export function retryAfterMs(value: string | undefined, now: number = Date.now()): number | null {
  if (value === undefined || value === '') return null;
  const v = value.trim();
  if (/^\d{1,9}$/.test(v)) return Number(v) * 1000;
  // An HTTP-date as RFC 9110 requires senders to write it (IMF-fixdate); Date.parse alone takes "-1" for a year.
  if (!IMF_FIXDATE.test(v)) return null;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}
