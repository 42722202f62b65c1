import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openGatewayStore, type GatewayStore } from '../storage/gateway-store.js';
import { MetricStore } from './metric-store.js';

let dir = '';
let store: GatewayStore | null = null;
afterEach(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
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
    expect(store.metrics.get(['acme', 'decision.count', 'bot', s])).toEqual([3]);
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
    expect(store.metrics.get(['acme', 'decision.count', 'bot', s])).toEqual([2]);
    expect(store.metrics.get(['acme', 'decision.blocked_count', 'bot', s])).toEqual([1]);
    expect(store.metrics.get(['acme', 'decision.latency_ms', 'bot', s])).toEqual([5, 7]);
  });
});
