import { growingLru } from '@aduana/shared';
import type { LRUCache } from 'lru-cache';

/**
 * The mutable, per-tenant state policies read: rate-limit windows, each session's accumulated risk and each agent's
 * spend. It outlives recompilation (keys use policy ids), so changing a policy does not reset a window.
 */
export class TenantState {
  /** `${policyId}\0${scopeKey}` -> sliding window counter. */
  readonly windows: LRUCache<string, Window> = growingLru(200_000);
  /** session key -> accumulated risk of the session's allowed actions. */
  readonly sessionRisk: LRUCache<string, number> = growingLru(100_000, 24 * 3_600_000);
  /** `${agentId}\0${periodKey}` -> BRL spent. Loaded from and written through to LMDB by the budget ledger. */
  readonly spend = new Map<string, number>();
}

export interface Window {
  start: number;
  count: number;
  previous: number;
}

/**
 * Counts one hit in a sliding window (the previous fixed window's count weighted by its remaining overlap) and
 * returns the estimated hits in the last `windowMs` including this one.
 */
export function hit(w: Window | undefined, now: number, windowMs: number): { window: Window; count: number } {
  const start = now - (now % windowMs);
  if (!w) w = { start, count: 0, previous: 0 };
  else if (w.start !== start) {
    w.previous = start - w.start === windowMs ? w.count : 0;
    w.start = start;
    w.count = 0;
  }
  w.count++;
  const overlap = 1 - (now - start) / windowMs;
  return { window: w, count: w.count + w.previous * overlap };
}

// The ISO date is recomputed once a minute, not per call: periodKey runs on every budget check and every metered call.
let cachedMinute = -1;
let cachedIso = '';

export function periodKey(period: 'day' | 'month', now: number): string {
  const minute = Math.floor(now / 60_000);
  if (minute !== cachedMinute) {
    cachedMinute = minute;
    cachedIso = new Date(minute * 60_000).toISOString();
  }
  return period === 'day' ? cachedIso.slice(0, 10) : cachedIso.slice(0, 7);
}
