import type { Database } from 'lmdb';
import { migrateToSlots } from './metric-layout.js';
import { COUNTER_INDEX, emptySlot, mergeSlots, METRIC_INDEX, SLOT_TAG, type MetricName, type Slot, type SlotKey } from './metric-slot.js';
import { summarize, type MetricSeries } from './metric-summary.js';

export { METRICS, type MetricName } from './metric-slot.js';
export type { MetricSeries } from './metric-summary.js';

/** The samples of one flush: second -> tenant -> agent -> slot (read-only once handed over). */
export type FlushedSamples = ReadonlyMap<number, ReadonlyMap<string, ReadonlyMap<string, Slot>>>;

const DECISION_COUNT = METRIC_INDEX.get('decision.count') as number;
const DECISION_LATENCY = METRIC_INDEX.get('decision.latency_ms') as number;
const DECISION_BLOCKED = METRIC_INDEX.get('decision.blocked_count') as number;

/** second -> tenant -> agent -> slot: nested maps, so recording a sample builds no joined key string. */
type Buffer = Map<number, Map<string, Map<string, Slot>>>;

/**
 * The number of this store's last committed flush, written in the flush's own transaction. A query reads it in the
 * same snapshot as the samples, so it knows which batches that snapshot already holds: the write thread commits before
 * the main thread hears of it, and in between a batch is both on disk and in `#writing`. (Ids hold no control
 * characters, so no tenant's key sorts here.)
 */
const FLUSHED: [string, string] = ['\u0000metric-store', 'flushed'];
/**
 * The latest second any flush has written. A flushed key of a later second cannot exist yet, so the flush writes it
 * without reading it first (most keys: one per agent and second).
 */
const THROUGH: [string, string] = ['\u0000metric-store', 'through'];

/**
 * Metric samples in LMDB under [tenant, SLOT_TAG, agent, unix second] -> that second's slot (every measure of the agent
 * in that second: counts' totals, measures' samples): one range read answers a tenant's series for a window, per agent
 * or for all, and a decision's count, latency and block share one key. Samples are buffered per second in memory and
 * written once a second (one write per agent and second, not per call); queries see the buffer too.
 */
export class MetricStore {
  /** Samples not yet written. */
  #buffer: Buffer = new Map();
  /** Batches being written, by flush number: a query reads those its snapshot does not hold yet (no gap, no double). */
  readonly #writing = new Map<Buffer, number>();
  #flushes: number;
  /** Seconds up to this one may already hold samples on disk. */
  #through: number;
  #timer: NodeJS.Timeout | null = null;
  /** Fleet mode: hears each flush's samples (a sidecar ships them); null in the embedded default. */
  #onFlush: ((samples: FlushedSamples) => void) | null = null;

  /** Flushes written so far, one after another: each chunk's transaction starts after the one before it committed. */
  #chain: Promise<unknown> = Promise.resolve();

  /**
   * `chunkSlots`: the most slots one write transaction takes. Its puts run on the event loop (inside lmdb-js's
   * transaction callback), so a flush of every agent's second at once held the loop for 10-14 ms with 1,024 agents;
   * chunks let requests run between them (--cpu-prof of bench:decide: chunks of 256 held it up to 4.7-6.7 ms, of 64
   * mostly 2.7-4).
   */
  constructor(
    private readonly db: Database,
    private readonly chunkSlots = 64,
  ) {
    const migrated = migrateToSlots(db);
    this.#flushes = (db.get(FLUSHED) as number | undefined) ?? 0;
    // A store written before THROUGH existed only ever wrote seconds up to its own clock.
    this.#through = (db.get(THROUGH) as number | undefined) ?? Math.floor(Date.now() / 1000);
    // Or, moved from the per-metric layout, seconds up to the latest it held (a clock may have been set back since).
    if (migrated > this.#through) {
      this.#through = migrated;
      db.putSync(THROUGH, migrated);
    }
  }

  record(tenantId: string, metric: MetricName, agentId: string, value: number, atMs: number): void {
    const i = METRIC_INDEX.get(metric) as number;
    const slot = this.#slot(tenantId, agentId, Math.floor(atMs / 1000));
    const held = slot[i] as number | number[] | null;
    if (COUNTER_INDEX[i]) slot[i] = ((held as number | null) ?? 0) + value;
    else if (held === null) slot[i] = [value];
    else (held as number[]).push(value);
  }

  /** One decision's samples (count, latency, blocked) in one lookup: the per-decision path. */
  recordDecision(tenantId: string, agentId: string, latencyMs: number, blocked: boolean, atMs: number): void {
    const slot = this.#slot(tenantId, agentId, Math.floor(atMs / 1000));
    slot[DECISION_COUNT] = ((slot[DECISION_COUNT] as number | null) ?? 0) + 1;
    const latency = slot[DECISION_LATENCY] as number[] | null;
    if (latency === null) slot[DECISION_LATENCY] = [latencyMs];
    else latency.push(latencyMs);
    if (blocked) slot[DECISION_BLOCKED] = ((slot[DECISION_BLOCKED] as number | null) ?? 0) + 1;
  }

  #slot(tenantId: string, agentId: string, second: number): Slot {
    let tenants = this.#buffer.get(second);
    if (tenants === undefined) {
      tenants = new Map();
      this.#buffer.set(second, tenants);
    }
    let agents = tenants.get(tenantId);
    if (agents === undefined) {
      agents = new Map();
      tenants.set(tenantId, agents);
    }
    let slot = agents.get(agentId);
    if (slot === undefined) {
      slot = emptySlot();
      agents.set(agentId, slot);
    }
    if (this.#timer === null) this.#timer = setTimeout(() => void this.flush(), 1000).unref();
    return slot;
  }

  /** Fleet mode: `listener` hears the samples of every flush, once a second at most (never on the request path). */
  observeFlush(listener: (samples: FlushedSamples) => void): void {
    this.#onFlush = listener;
  }

  /**
   * Writes buffered samples, appending to what a second already holds (also called at shutdown); resolves once every
   * flush so far is written. The samples go in chunks of at most `chunkSlots`, each its own transaction with its own
   * flush number, committed in order, so a query's snapshot holds exactly the chunks up to the number it reads.
   */
  flush(): Promise<unknown> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#buffer.size === 0) return this.#chain;
    const pending = this.#buffer;
    this.#buffer = new Map();
    const through = this.#through;
    let latest = through;
    for (const second of pending.keys()) if (second > latest) latest = second;
    this.#through = latest;
    const chunks = this.#chunks(pending);
    const written: Promise<unknown>[] = [];
    chunks.forEach((chunk, i) => {
      const seq = ++this.#flushes;
      this.#writing.set(chunk, seq);
      // The first chunk records how far seconds may hold samples on disk; seconds after every earlier flush's hold
      // nothing yet and are put without reading (an earlier flush's chunks have all committed before this one runs).
      const write = () => this.#write(chunk, seq, through, i === 0 && latest > through ? latest : null);
      const done = this.#chain.then(write);
      const settle = () => this.#writing.delete(chunk);
      done.then(settle, settle);
      this.#chain = done.catch(() => undefined);
      written.push(done);
    });
    this.#onFlush?.(pending);
    return Promise.all(written);
  }

  #write(chunk: Buffer, seq: number, through: number, newThrough: number | null): Promise<unknown> {
    return this.db.transaction(() => {
      void this.db.put(FLUSHED, seq);
      if (newThrough !== null) void this.db.put(THROUGH, newThrough);
      for (const [second, tenants] of chunk) {
        const fresh = second > through;
        for (const [tenantId, agents] of tenants) {
          for (const [agentId, slot] of agents) {
            const key: SlotKey = [tenantId, SLOT_TAG, agentId, second];
            const stored = fresh ? undefined : (this.db.get(key) as Slot | undefined);
            void this.db.put(key, stored === undefined ? slot : mergeSlots(stored, slot));
          }
        }
      }
    });
  }

  /** `pending` cut into buffers of at most `chunkSlots` slots; `pending` itself when it fits in one. */
  #chunks(pending: Buffer): Buffer[] {
    let total = 0;
    for (const tenants of pending.values()) for (const agents of tenants.values()) total += agents.size;
    if (total <= this.chunkSlots) return [pending];
    const out: Buffer[] = [];
    let chunk: Buffer = new Map();
    let slots = 0;
    for (const [second, tenants] of pending) {
      for (const [tenantId, agents] of tenants) {
        for (const [agentId, slot] of agents) {
          if (slots === this.chunkSlots) {
            out.push(chunk);
            chunk = new Map();
            slots = 0;
          }
          let t = chunk.get(second);
          if (t === undefined) chunk.set(second, (t = new Map()));
          let a = t.get(tenantId);
          if (a === undefined) t.set(tenantId, (a = new Map()));
          a.set(agentId, slot);
          slots++;
        }
      }
    }
    out.push(chunk);
    return out;
  }

  /** The tenant's samples of `metric` in [from, to] (Unix seconds), one agent or all, per second, with summary stats. */
  query(tenantId: string, metric: MetricName, from: number, to: number, agentId?: string): MetricSeries {
    const perSecond = new Map<number, number>();
    const values: number[] = [];
    const i = METRIC_INDEX.get(metric) as number;
    const take = (ts: number, held: number | number[] | null | undefined) => {
      if (held === null || held === undefined) return;
      if (typeof held === 'number') {
        perSecond.set(ts, (perSecond.get(ts) ?? 0) + held);
        values.push(held);
        return;
      }
      for (const v of held) {
        perSecond.set(ts, (perSecond.get(ts) ?? 0) + v);
        values.push(v);
      }
    };
    const unwritten = this.#unwritten();
    const agents = agentId !== undefined ? [agentId] : this.#agents(tenantId, i, unwritten);
    for (const agent of agents) {
      for (const { key, value } of this.db.getRange({ start: [tenantId, SLOT_TAG, agent, from], end: [tenantId, SLOT_TAG, agent, to + 1] })) {
        take((key as SlotKey)[3], (value as Slot)[i]);
      }
    }
    // Samples of the last second, not written yet (or being written and not in this snapshot).
    for (const buffer of unwritten) {
      for (const [ts, tenants] of buffer) {
        const agents = ts >= from && ts <= to ? tenants.get(tenantId) : undefined;
        if (agents === undefined) continue;
        if (agentId !== undefined) {
          take(ts, agents.get(agentId)?.[i]);
        } else {
          for (const slot of agents.values()) take(ts, slot[i]);
        }
      }
    }
    return summarize(metric, perSecond, values);
  }

  /** Deletes samples older than `beforeSecond`, a chunk at a time so the event loop keeps turning; returns how many keys went. */
  async prune(beforeSecond: number, chunk = 2000): Promise<number> {
    let removed = 0;
    for (;;) {
      const old: SlotKey[] = [];
      for (const key of this.db.getKeys({})) {
        if ((key as SlotKey)[3] < beforeSecond) old.push(key as SlotKey);
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
  #unwritten(): Buffer[] {
    const committed = (this.db.get(FLUSHED) as number | undefined) ?? 0;
    const out = [this.#buffer];
    for (const [batch, seq] of this.#writing) if (seq > committed) out.push(batch);
    return out;
  }

  /** Agents with slots of the tenant (an agent without this metric's samples adds nothing to its series). */
  #agents(tenantId: string, i: number, unwritten: readonly Buffer[]): string[] {
    const agents = new Set<string>();
    let last: string | null = null;
    // Skip from one agent's range to the next: a few reads, however many seconds each agent has.
    for (;;) {
      let next: string | null = null;
      for (const key of this.db.getKeys({ start: [tenantId, SLOT_TAG, last === null ? '' : `${last}\u0000`], end: [tenantId, SLOT_TAG, '\uffff'], limit: 1 })) {
        next = (key as [string, string, string])[2];
      }
      if (next === null) break;
      agents.add(next);
      last = next;
    }
    for (const buffer of unwritten) {
      for (const tenants of buffer.values()) {
        for (const [agent, slot] of tenants.get(tenantId) ?? []) if (slot[i] !== null) agents.add(agent);
      }
    }
    return [...agents];
  }
}
