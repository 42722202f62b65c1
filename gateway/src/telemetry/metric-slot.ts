/** Metric names `GET /v1/telemetry/query/stats` reads (docs/telemetry.md, "Metrics"). */
export const METRICS = ['decision.latency_ms', 'decision.count', 'decision.blocked_count', 'budget.cost_brl', 'heartbeat.missed_count', 'limits.redis_fallbacks'] as const;
export type MetricName = (typeof METRICS)[number];

/** A metric's index in `METRICS`: its place in a slot. */
export const METRIC_INDEX = new Map<string, number>(METRICS.map((m, i) => [m, i]));

/**
 * Counts: one number per second (the second's total), and the summary statistics are over those per-second totals.
 * The others keep every sample of a second, and the statistics are over the samples (docs/telemetry.md).
 */
export const COUNTERS: ReadonlySet<string> = new Set<MetricName>(['decision.count', 'decision.blocked_count', 'heartbeat.missed_count', 'limits.redis_fallbacks']);
export const COUNTER_INDEX: readonly boolean[] = METRICS.map((m) => COUNTERS.has(m));

/**
 * One agent's measures of one second, by metric index: a count's total, a measure's samples, null for none. The same
 * array is buffered in memory and stored as one LMDB value, so a decision's count, latency and block cost one key.
 */
export type Slot = (number | number[] | null)[];

export function emptySlot(): Slot {
  return [null, null, null, null, null, null];
}

/**
 * Key of a slot: [tenant, SLOT_TAG, agent, unix second]. The tag sorts before every metric name, so a tenant's slots
 * are one range, apart from the per-metric keys of the layout before (ids hold no control characters).
 */
export const SLOT_TAG = '\u0001';
export type SlotKey = [string, string, string, number];

/** `held` plus `added`, measure by measure (neither is modified). */
export function mergeSlots(held: Slot, added: Slot): Slot {
  const out = emptySlot();
  for (let i = 0; i < out.length; i++) out[i] = mergeMeasure(i, held[i] ?? null, added[i] ?? null);
  return out;
}

export function mergeMeasure(i: number, held: number | number[] | null, added: number | number[] | null): number | number[] | null {
  if (added === null) return held;
  if (held === null) return added;
  if (COUNTER_INDEX[i]) return (held as number) + (added as number);
  return (held as number[]).concat(added as number[]);
}
