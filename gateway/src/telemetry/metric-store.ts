import type { Database } from 'lmdb';

/** Metric names of the spec's query/stats. */
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
 * Metric samples in LMDB under [tenant, metric, agent, unix seconds, n]: one range read answers a tenant's series for
 * a time window, per agent or for all. Writes are not awaited (the next batched commit carries them).
 */
export class MetricStore {
  #n = 0;

  constructor(private readonly db: Database) {}

  record(tenantId: string, metric: MetricName, agentId: string, value: number, atMs: number): void {
    // n keeps two samples of the same second apart.
    void this.db.put([tenantId, metric, agentId, Math.floor(atMs / 1000), this.#n++ & 0xffffff], value);
  }

  /** The tenant's samples of `metric` in [from, to] (Unix seconds), one agent or all, per second, with summary stats. */
  query(tenantId: string, metric: MetricName, from: number, to: number, agentId?: string): MetricSeries {
    const perSecond = new Map<number, number>();
    const values: number[] = [];
    const agents = agentId !== undefined ? [agentId] : this.#agents(tenantId, metric);
    for (const agent of agents) {
      for (const { key, value } of this.db.getRange({ start: [tenantId, metric, agent, from], end: [tenantId, metric, agent, to + 1] })) {
        const ts = (key as [string, string, string, number])[3];
        perSecond.set(ts, (perSecond.get(ts) ?? 0) + (value as number));
        values.push(value as number);
      }
    }
    const series = [...perSecond.entries()].sort((a, b) => a[0] - b[0]).map(([timestamp, value]) => ({ timestamp, value }));
    values.sort((a, b) => a - b);
    const pct = (p: number) => (values.length ? (values[Math.min(values.length - 1, Math.ceil(p * values.length) - 1)] as number) : 0);
    const avg = values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
    return { metric, series, avg, p95: pct(0.95), p99: pct(0.99) };
  }

  #agents(tenantId: string, metric: string): string[] {
    const agents: string[] = [];
    let next: string | null = '';
    // Skip from one agent's range to the next: a few reads, however many samples each agent has.
    while (next !== null) {
      next = null;
      for (const key of this.db.getKeys({ start: [tenantId, metric, agents.length ? `${agents[agents.length - 1]}\u0000` : ''], end: [tenantId, metric, '\uffff'], limit: 1 })) {
        next = (key as [string, string, string])[2];
      }
      if (next !== null) agents.push(next);
    }
    return agents;
  }
}
