import type { Database } from 'lmdb';

/** Metric names `GET /v1/telemetry/query/stats` reads (docs/decisions.md, "Telemetry"). */
export const METRICS = ['decision.latency_ms', 'decision.count', 'decision.blocked_count', 'budget.cost_brl', 'heartbeat.missed_count'] as const;
export type MetricName = (typeof METRICS)[number];

export interface MetricSeries {
  metric: string;
  series: { timestamp: number; value: number }[];
  avg: number;
  p95: number;
  p99: number;
}

/**
 * Metric samples in LMDB under [tenant, metric, agent, unix second] -> the samples of that second: one range read
 * answers a tenant's series for a window, per agent or for all. Samples are buffered per second in memory and written
 * once a second (one write per key, not per call); queries see the buffer too.
 */
export class MetricStore {
  /** JSON key of [tenant, metric, agent, second] -> samples not yet written. */
  readonly #buffer = new Map<string, number[]>();
  #timer: NodeJS.Timeout | null = null;

  constructor(private readonly db: Database) {}

  record(tenantId: string, metric: MetricName, agentId: string, value: number, atMs: number): void {
    const key = JSON.stringify([tenantId, metric, agentId, Math.floor(atMs / 1000)]);
    const samples = this.#buffer.get(key);
    if (samples) samples.push(value);
    else this.#buffer.set(key, [value]);
    if (this.#timer === null) this.#timer = setTimeout(() => void this.flush(), 1000).unref();
  }

  /** Writes buffered samples, appending to what a second already holds (also called at shutdown). */
  flush(): Promise<unknown> {
    this.#timer = null;
    const pending = [...this.#buffer];
    this.#buffer.clear();
    if (pending.length === 0) return Promise.resolve();
    return this.db.transaction(() => {
      for (const [json, samples] of pending) {
        const key = JSON.parse(json) as [string, string, string, number];
        const stored = this.db.get(key) as number[] | undefined;
        this.db.put(key, stored ? stored.concat(samples) : samples);
      }
    });
  }

  /** The tenant's samples of `metric` in [from, to] (Unix seconds), one agent or all, per second, with summary stats. */
  query(tenantId: string, metric: MetricName, from: number, to: number, agentId?: string): MetricSeries {
    const perSecond = new Map<number, number>();
    const values: number[] = [];
    const take = (ts: number, samples: readonly number[]) => {
      for (const v of samples) {
        perSecond.set(ts, (perSecond.get(ts) ?? 0) + v);
        values.push(v);
      }
    };
    const agents = agentId !== undefined ? [agentId] : this.#agents(tenantId, metric);
    for (const agent of agents) {
      for (const { key, value } of this.db.getRange({ start: [tenantId, metric, agent, from], end: [tenantId, metric, agent, to + 1] })) {
        take((key as [string, string, string, number])[3], value as number[]);
      }
    }
    // Samples of the last second, not written yet.
    for (const [json, samples] of this.#buffer) {
      const [t, m, a, ts] = JSON.parse(json) as [string, string, string, number];
      if (t === tenantId && m === metric && (agentId === undefined || a === agentId) && ts >= from && ts <= to) take(ts, samples);
    }
    const series = [...perSecond.entries()].sort((a, b) => a[0] - b[0]).map(([timestamp, value]) => ({ timestamp, value }));
    values.sort((a, b) => a - b);
    const pct = (p: number) => (values.length ? (values[Math.min(values.length - 1, Math.ceil(p * values.length) - 1)] as number) : 0);
    const avg = values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
    return { metric, series, avg, p95: pct(0.95), p99: pct(0.99) };
  }

  #agents(tenantId: string, metric: string): string[] {
    const agents = new Set<string>();
    let last: string | null = null;
    // Skip from one agent's range to the next: a few reads, however many seconds each agent has.
    for (;;) {
      let next: string | null = null;
      for (const key of this.db.getKeys({ start: [tenantId, metric, last === null ? '' : `${last}\u0000`], end: [tenantId, metric, '\uffff'], limit: 1 })) {
        next = (key as [string, string, string])[2];
      }
      if (next === null) break;
      agents.add(next);
      last = next;
    }
    for (const json of this.#buffer.keys()) {
      const [t, m, a] = JSON.parse(json) as [string, string, string];
      if (t === tenantId && m === metric) agents.add(a);
    }
    return [...agents];
  }
}
