import type { Database } from 'lmdb';

/** Metric names `GET /v1/telemetry/query/stats` reads (docs/telemetry.md, "Metrics"). */
export const METRICS = ['decision.latency_ms', 'decision.count', 'decision.blocked_count', 'budget.cost_brl', 'heartbeat.missed_count', 'limits.redis_fallbacks'] as const;
export type MetricName = (typeof METRICS)[number];

/**
 * Counts: one number per second (the second's total), and the summary statistics are over those per-second totals.
 * The others keep every sample of a second, and the statistics are over the samples (docs/telemetry.md).
 */
const COUNTERS: ReadonlySet<string> = new Set<MetricName>(['decision.count', 'decision.blocked_count', 'heartbeat.missed_count', 'limits.redis_fallbacks']);

export interface MetricSeries {
  metric: string;
  series: { timestamp: number; value: number }[];
  avg: number;
  p95: number;
  p99: number;
}

type Key = [string, string, string, number];

/**
 * The number of this store's last committed flush, written in the flush's own transaction. A query reads it in the
 * same snapshot as the samples, so it knows which batches that snapshot already holds: the write thread commits before
 * the main thread hears of it, and in between a batch is both on disk and in `#writing`. (Ids hold no control
 * characters, so no tenant's key sorts here.)
 */
const FLUSHED: [string, string] = ['\u0000metric-store', 'flushed'];

/**
 * Metric samples in LMDB under [tenant, metric, agent, unix second] -> the samples of that second: one range read
 * answers a tenant's series for a window, per agent or for all. Samples are buffered per second in memory and written
 * once a second (one write per key, not per call); queries see the buffer too.
 */
export class MetricStore {
  /** `tenant \0 metric \0 agent \0 second` (ids hold no control characters) -> samples not yet written. */
  readonly #buffer = new Map<string, number[]>();
  /** Batches being written, by flush number: a query reads those its snapshot does not hold yet (no gap, no double). */
  readonly #writing = new Map<Map<string, number[]>, number>();
  #flushes: number;
  #timer: NodeJS.Timeout | null = null;

  constructor(private readonly db: Database) {
    this.#flushes = (db.get(FLUSHED) as number | undefined) ?? 0;
  }

  record(tenantId: string, metric: MetricName, agentId: string, value: number, atMs: number): void {
    const key = `${tenantId}\0${metric}\0${agentId}\0${Math.floor(atMs / 1000)}`;
    const samples = this.#buffer.get(key);
    if (samples) {
      if (COUNTERS.has(metric)) samples[0] = (samples[0] as number) + value;
      else samples.push(value);
    } else this.#buffer.set(key, [value]);
    if (this.#timer === null) this.#timer = setTimeout(() => void this.flush(), 1000).unref();
  }

  /** Writes buffered samples, appending to what a second already holds (also called at shutdown). */
  flush(): Promise<unknown> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#buffer.size === 0) return Promise.resolve();
    const pending = new Map(this.#buffer);
    this.#buffer.clear();
    const seq = ++this.#flushes;
    this.#writing.set(pending, seq);
    const written = this.db.transaction(() => {
      void this.db.put(FLUSHED, seq);
      for (const [flat, samples] of pending) {
        const key = parseKey(flat);
        const stored = this.db.get(key) as number[] | undefined;
        if (!stored) this.db.put(key, samples);
        else if (COUNTERS.has(key[1])) this.db.put(key, [(stored[0] ?? 0) + (samples[0] as number)]);
        else this.db.put(key, stored.concat(samples));
      }
    });
    const done = () => this.#writing.delete(pending);
    written.then(done, done);
    return written;
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
    const unwritten = this.#unwritten();
    const agents = agentId !== undefined ? [agentId] : this.#agents(tenantId, metric, unwritten);
    for (const agent of agents) {
      for (const { key, value } of this.db.getRange({ start: [tenantId, metric, agent, from], end: [tenantId, metric, agent, to + 1] })) {
        take((key as Key)[3], value as number[]);
      }
    }
    // Samples of the last second, not written yet (or being written and not in this snapshot).
    for (const buffer of unwritten) {
      for (const [flat, samples] of buffer) {
        const [t, m, a, ts] = parseKey(flat);
        if (t === tenantId && m === metric && (agentId === undefined || a === agentId) && ts >= from && ts <= to) take(ts, samples);
      }
    }
    const series = [...perSecond.entries()].sort((a, b) => a[0] - b[0]).map(([timestamp, value]) => ({ timestamp, value }));
    // A count's statistics are over its per-second totals (all agents together), a measure's over its samples.
    const stats = COUNTERS.has(metric) ? series.map((p) => p.value) : values;
    stats.sort((a, b) => a - b);
    const pct = (p: number) => (stats.length ? (stats[Math.min(stats.length - 1, Math.ceil(p * stats.length) - 1)] as number) : 0);
    const avg = stats.length ? stats.reduce((a, b) => a + b, 0) / stats.length : 0;
    return { metric, series, avg, p95: pct(0.95), p99: pct(0.99) };
  }

  /** Deletes samples older than `beforeSecond`, a chunk at a time so the event loop keeps turning; returns how many keys went. */
  async prune(beforeSecond: number, chunk = 2000): Promise<number> {
    let removed = 0;
    for (;;) {
      const old: Key[] = [];
      for (const key of this.db.getKeys({})) {
        if ((key as Key)[3] < beforeSecond) old.push(key as Key);
        if (old.length >= chunk) break;
      }
      if (old.length === 0) return removed;
      await this.db.transaction(() => {
        for (const k of old) this.db.remove(k);
      });
      removed += old.length;
      if (old.length < chunk) return removed;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** The buffer and the batches being written that the current read snapshot does not hold yet. */
  #unwritten(): Map<string, number[]>[] {
    const committed = (this.db.get(FLUSHED) as number | undefined) ?? 0;
    const out = [this.#buffer];
    for (const [batch, seq] of this.#writing) if (seq > committed) out.push(batch);
    return out;
  }

  #agents(tenantId: string, metric: string, unwritten: readonly Map<string, number[]>[]): string[] {
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
    for (const buffer of unwritten) {
      for (const flat of buffer.keys()) {
        const [t, m, a] = parseKey(flat);
        if (t === tenantId && m === metric) agents.add(a);
      }
    }
    return [...agents];
  }
}

function parseKey(flat: string): Key {
  const [t, m, a, s] = flat.split('\0') as [string, string, string, string];
  return [t, m, a, Number(s)];
}
