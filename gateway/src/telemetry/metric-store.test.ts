import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openGatewayStore, type GatewayStore } from '../storage/gateway-store.js';
import { METRICS, MetricStore, type MetricName } from './metric-store.js';
import { migrateToSlots } from './metric-layout.js';
import { METRIC_INDEX, SLOT_TAG } from './metric-slot.js';

let dir = '';
let store: GatewayStore | null = null;
let refDir = '';
let refStore: GatewayStore | null = null;
afterEach(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
  await refStore?.close();
  refStore = null;
  if (refDir) rmSync(refDir, { recursive: true, force: true });
});

describe('MetricStore', () => {
  it('answers from the buffer at once, writes once a second, appends to a second already written, isolates tenants', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aduana-metrics-'));
    store = openGatewayStore(dir);
    const m = new MetricStore(store.metrics);
    const t = 1_800_000_000_000;
    m.record('acme', 'budget.cost_brl', 'bot', 1, t);
    m.record('acme', 'budget.cost_brl', 'bot', 3, t + 100);
    m.record('acme', 'budget.cost_brl', 'other', 10, t + 2000);
    m.record('globex', 'budget.cost_brl', 'bot', 99, t);
    const s = t / 1000;
    expect(m.query('acme', 'budget.cost_brl', s - 1, s + 5)).toMatchObject({ series: [{ timestamp: s, value: 4 }, { timestamp: s + 2, value: 10 }], avg: 14 / 3 });
    await m.flush();
    m.record('acme', 'budget.cost_brl', 'bot', 2, t + 500);
    await m.flush();
    const fresh = new MetricStore(store.metrics);
    expect(fresh.query('acme', 'budget.cost_brl', s, s, 'bot')).toMatchObject({ series: [{ timestamp: s, value: 6 }], avg: 2, p99: 3 });
    expect(fresh.query('acme', 'budget.cost_brl', s - 1, s + 5).series).toHaveLength(2);
    expect(fresh.query('globex', 'budget.cost_brl', s - 1, s + 5).series).toEqual([{ timestamp: s, value: 99 }]);
    expect(fresh.query('acme', 'decision.count', s - 1, s + 5)).toEqual({ metric: 'decision.count', series: [], avg: 0, p95: 0, p99: 0 });
  });

  it('a query while a flush is being written sees its samples once; counts keep one total per second', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aduana-metrics-'));
    store = openGatewayStore(dir);
    const m = new MetricStore(store.metrics);
    const t = 1_800_000_000_000;
    const s = t / 1000;
    m.record('acme', 'decision.count', 'bot', 1, t);
    m.record('acme', 'decision.count', 'bot', 1, t + 10);
    m.record('acme', 'decision.latency_ms', 'bot', 2, t);
    const writing = m.flush();
    expect(m.query('acme', 'decision.count', s, s).series).toEqual([{ timestamp: s, value: 2 }]);
    await writing;
    m.record('acme', 'decision.count', 'bot', 1, t + 20);
    expect(m.query('acme', 'decision.count', s, s).series).toEqual([{ timestamp: s, value: 3 }]);
    await m.flush();
    expect((store.metrics.get(['acme', SLOT_TAG, 'bot', s]) as unknown[])[METRIC_INDEX.get('decision.count') as number]).toBe(3);
    expect(m.query('acme', 'decision.latency_ms', s, s)).toMatchObject({ series: [{ timestamp: s, value: 2 }], avg: 2 });
  });

  it('never counts a batch twice in the moment its commit is readable but not yet reported back', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aduana-metrics-'));
    store = openGatewayStore(dir);
    const m = new MetricStore(store.metrics);
    const t = 1_800_000_000_000;
    const s = t / 1000;
    let expected = 0;
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 50; i++) m.record('acme', 'decision.count', `bot-${String(i)}`, 1, t);
      expected += 50;
      let done = false;
      const writing = m.flush().then(() => (done = true));
      // Query on every turn of the event loop until the flush is reported: the write thread's commit becomes readable
      // before its promise settles, and every answer in between must still count each sample once.
      while (!done) {
        expect(m.query('acme', 'decision.count', s, s).series).toEqual([{ timestamp: s, value: expected }]);
        await new Promise((r) => setImmediate(r));
      }
      await writing;
    }
    expect(new MetricStore(store.metrics).query('acme', 'decision.count', s, s).series).toEqual([{ timestamp: s, value: expected }]);
  });

  it('a flush cut into many transactions is read whole at every moment, and late samples add to their second', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aduana-metrics-'));
    store = openGatewayStore(dir);
    const m = new MetricStore(store.metrics, 7);
    const t = 1_800_000_000_000;
    const s = t / 1000;
    let expected = 0;
    for (let round = 0; round < 10; round++) {
      // 50 agents in the first second (written by every round after the first: read, merged, put) and a new second.
      for (let i = 0; i < 50; i++) m.record('acme', 'decision.count', `bot-${String(i)}`, 1, t);
      for (let i = 0; i < 20; i++) m.record('acme', 'decision.count', `bot-${String(i)}`, 1, t + 1000 * (round + 1));
      expected += 50;
      let done = false;
      const writing = m.flush().then(() => (done = true));
      // A second flush while the first's eleven chunks are being written: it waits for them, then merges into them.
      m.record('acme', 'decision.count', 'bot-0', 1, t);
      expected += 1;
      const second = m.flush();
      while (!done) {
        expect(m.query('acme', 'decision.count', s, s).series).toEqual([{ timestamp: s, value: expected }]);
        await new Promise((r) => setImmediate(r));
      }
      await Promise.all([writing, second]);
    }
    const reread = new MetricStore(store.metrics);
    expect(reread.query('acme', 'decision.count', s, s).series).toEqual([{ timestamp: s, value: expected }]);
    expect(reread.query('acme', 'decision.count', s + 1, s + 10).series).toHaveLength(10);
    expect((store.metrics.get(['acme', SLOT_TAG, 'bot-0', s]) as unknown[])[METRIC_INDEX.get('decision.count') as number]).toBe(20);
    // Each round: 70 slots in chunks of 7, then the one late slot: eleven transactions, each with its flush number.
    expect(store.metrics.get(['\u0000metric-store', 'flushed'])).toBe(110);
  });

  it('recordDecision keeps the count, latency and blocked count of a decision like three records', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aduana-metrics-'));
    store = openGatewayStore(dir);
    const m = new MetricStore(store.metrics);
    const t = 1_800_000_000_000;
    const s = t / 1000;
    m.recordDecision('acme', 'bot', 4, false, t);
    m.recordDecision('acme', 'bot', 8, true, t + 1);
    m.recordDecision('acme', 'other', 6, true, t + 1000);
    m.recordDecision('globex', 'bot', 100, true, t);
    const check = (x: MetricStore) => {
      expect(x.query('acme', 'decision.count', s, s + 1).series).toEqual([{ timestamp: s, value: 2 }, { timestamp: s + 1, value: 1 }]);
      expect(x.query('acme', 'decision.blocked_count', s, s + 1, 'bot').series).toEqual([{ timestamp: s, value: 1 }]);
      expect(x.query('acme', 'decision.latency_ms', s, s + 1)).toMatchObject({ avg: 6, p99: 8 });
    };
    check(m);
    await m.flush();
    check(m);
    check(new MetricStore(store.metrics));
  });

  it('after a restart, samples of a second already written are added to it, never written over it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aduana-metrics-'));
    store = openGatewayStore(dir);
    // A second ahead of the clock: the store must know from disk, not from the time, that it was written.
    const t = Date.now() + 3_600_000;
    const s = Math.floor(t / 1000);
    const before = new MetricStore(store.metrics);
    before.recordDecision('acme', 'bot', 5, true, t);
    await before.flush();
    const after = new MetricStore(store.metrics);
    after.recordDecision('acme', 'bot', 7, false, t);
    await after.flush();
    // One key holds the agent's second: count 2, latency samples 5 and 7, one block.
    expect(store.metrics.get(['acme', SLOT_TAG, 'bot', s])).toEqual([[5, 7], 2, 1, null, null, null]);
    expect(after.query('acme', 'decision.count', s, s).series).toEqual([{ timestamp: s, value: 2 }]);
    expect(after.query('acme', 'decision.latency_ms', s, s)).toMatchObject({ avg: 6, p99: 7 });
  });

  it('a decision of a new agent and second costs one key, not one per measure', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aduana-metrics-'));
    store = openGatewayStore(dir);
    const m = new MetricStore(store.metrics);
    const t = Date.now() + 3_600_000;
    for (let i = 0; i < 20; i++) m.recordDecision('acme', `bot-${String(i)}`, 3, i % 2 === 0, t);
    m.record('acme', 'budget.cost_brl', 'bot-0', 0.5, t);
    await m.flush();
    const keys = [...store.metrics.getKeys({ start: ['acme'], end: ['acme\uffff'] })];
    expect(keys).toHaveLength(20);
  });

  it('reads a store of the per-metric layout after an upgrade, with the same answers, and adds to its seconds', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aduana-metrics-'));
    store = openGatewayStore(dir);
    const t = 1_800_000_000_000;
    const s = t / 1000;
    // What the gateway before slots wrote: [tenant, metric, agent, second] -> that metric's samples of the second.
    const samples: [string, MetricName, string, number, number[]][] = [
      ['acme', 'decision.count', 'bot', s, [3]],
      ['acme', 'decision.count', 'bot', s + 1, [1]],
      ['acme', 'decision.count', 'other', s, [2]],
      ['acme', 'decision.latency_ms', 'bot', s, [4, 8, 6]],
      ['acme', 'decision.latency_ms', 'bot', s + 1, [2]],
      ['acme', 'decision.latency_ms', 'other', s, [10, 12]],
      ['acme', 'decision.blocked_count', 'other', s, [1]],
      ['acme', 'budget.cost_brl', 'bot', s + 1, [0.25, 0.5]],
      ['acme', 'heartbeat.missed_count', 'idle', s + 2, [1]],
      ['acme', 'limits.redis_fallbacks', 'bot', s, [4]],
      ['globex', 'decision.count', 'bot', s, [9]],
    ];
    await store.metrics.transaction(() => {
      for (const [tenant, metric, agent, second, values] of samples) void store?.metrics.put([tenant, metric, agent, second], values);
    });
    // The same samples recorded through the store of today, in a store of its own: its answers are the reference.
    refDir = mkdtempSync(join(tmpdir(), 'aduana-metrics-ref-'));
    refStore = openGatewayStore(refDir);
    const expected = new MetricStore(refStore.metrics);
    for (const [tenant, metric, agent, second, values] of samples) for (const v of values) expected.record(tenant, metric, agent, v, second * 1000);
    await expected.flush();
    const upgraded = new MetricStore(store.metrics);
    for (const tenant of ['acme', 'globex']) {
      for (const metric of METRICS) {
        expect(upgraded.query(tenant, metric, s - 1, s + 5)).toEqual(expected.query(tenant, metric, s - 1, s + 5));
        for (const agent of ['bot', 'other', 'idle']) expect(upgraded.query(tenant, metric, s, s + 1, agent)).toEqual(expected.query(tenant, metric, s, s + 1, agent));
      }
    }
    expect(upgraded.query('acme', 'decision.latency_ms', s, s + 5)).toMatchObject({ series: [{ timestamp: s, value: 40 }, { timestamp: s + 1, value: 2 }], avg: 7 });
    // Moved, not copied: no key of the old layout is left, and a second restart reads the same.
    expect([...store.metrics.getKeys({})].filter((k) => (k as unknown[])[1] === 'decision.count')).toEqual([]);
    expect(new MetricStore(store.metrics).query('acme', 'decision.count', s, s + 5).series).toEqual([{ timestamp: s, value: 5 }, { timestamp: s + 1, value: 1 }]);
    // A decision in a second the old layout wrote is added to it.
    upgraded.recordDecision('acme', 'bot', 5, false, t);
    await upgraded.flush();
    expect(new MetricStore(store.metrics).query('acme', 'decision.count', s, s, 'bot').series).toEqual([{ timestamp: s, value: 4 }]);
  });

  it('moves a large per-metric store a chunk at a time, each sample once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aduana-metrics-'));
    store = openGatewayStore(dir);
    const s = 1_800_000_000;
    await store.metrics.transaction(() => {
      for (let a = 0; a < 7; a++) {
        for (let k = 0; k < 3; k++) {
          void store?.metrics.put(['acme', 'decision.count', `bot-${String(a)}`, s + k], [a + 1]);
          void store?.metrics.put(['acme', 'decision.latency_ms', `bot-${String(a)}`, s + k], [a, a + 1]);
        }
      }
    });
    // 42 keys in chunks of 4: an agent's second is split across chunks, and each chunk resumes where the last ended.
    expect(migrateToSlots(store.metrics, 4)).toBe(s + 2);
    const m = new MetricStore(store.metrics);
    expect(m.query('acme', 'decision.count', s, s + 2).series).toEqual([0, 1, 2].map((k) => ({ timestamp: s + k, value: 28 })));
    expect(m.query('acme', 'decision.latency_ms', s, s, 'bot-3').series).toEqual([{ timestamp: s, value: 7 }]);
    expect([...store.metrics.getKeys({ start: ['acme'], end: ['acme\uffff'] })]).toHaveLength(21);
  });
});
