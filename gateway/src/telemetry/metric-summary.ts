import { COUNTERS } from './metric-slot.js';

export interface MetricSeries {
  metric: string;
  series: { timestamp: number; value: number }[];
  avg: number;
  p95: number;
  p99: number;
}

/**
 * A window's answer from its per-second totals and its samples (docs/telemetry.md, "Metrics"): a count's statistics
 * are over its per-second totals (all agents together), a measure's over its samples. Shared by every store that
 * answers `/query/stats`, so they compute the same percentiles. `values` is sorted in place.
 */
export function summarize(metric: string, perSecond: ReadonlyMap<number, number>, values: number[]): MetricSeries {
  const series = [...perSecond.entries()].sort((a, b) => a[0] - b[0]).map(([timestamp, value]) => ({ timestamp, value }));
  const stats = COUNTERS.has(metric) ? series.map((p) => p.value) : values;
  stats.sort((a, b) => a - b);
  const pct = (p: number) => (stats.length ? (stats[Math.min(stats.length - 1, Math.ceil(p * stats.length) - 1)] as number) : 0);
  const avg = stats.length ? stats.reduce((a, b) => a + b, 0) / stats.length : 0;
  return { metric, series, avg, p95: pct(0.95), p99: pct(0.99) };
}
