import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyConsistency, verifyInclusion } from '../src/ledger/index.js';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

// Ledger retention seen through the HTTP API of a real gateway: what a pruned entry answers, and that lists, verify
// and proofs keep working for what remains.
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ checkpointEvery: 5, ledgerRetentionDays: 30 });
});
afterAll(() => t.close());

const ev = (i: number) => ({ event_type: 'tool.invoked', payload: { step: i }, metadata: { agent_id: i % 2 === 0 ? 'even' : 'odd' } });

describe('GET /v1/events after retention pruned entries', () => {
  it('a pruned entry answers 410 ledger_pruned; lists, verify and proofs cover what remains', async () => {
    const tok = await t.tenant('ret');
    // Batches of 5, 5 and 2: checkpoints are signed at 5 and 10 (and at 12 by the export).
    for (const [from, n] of [[1, 5], [6, 5], [11, 2]] as const) {
      const r = await call(t.url, 'POST', '/v1/events/ingest/batch', { token: tok.operator, body: { events: Array.from({ length: n }, (_, i) => ev(from + i)) } });
      expect(r.status).toBe(200);
    }
    const { ledger } = t.gw.deps;
    // The CLI's export (`aduana ledger export`) is what sets the mark; nothing is pruned before it.
    const future = new Date(Date.now() + 86_400_000);
    expect(await ledger.prune('ret', { before: future, releasedThrough: ledger.exportedThrough('ret') })).toMatchObject({ pruned_through: 0 });
    await ledger.exportJsonl('ret', new Writable({ write: (_c, _e, done) => done() }));
    expect(await ledger.prune('ret', { before: future, releasedThrough: ledger.exportedThrough('ret') })).toMatchObject({ pruned_through: 10, removed: 10 });

    const gone = expectEnvelope(await call(t.url, 'GET', '/v1/events/3', { token: tok.viewer }), 410, 'not_found');
    expect(gone.message).toMatch(/pruned/);
    expectEnvelope(await call(t.url, 'GET', '/v1/events/13', { token: tok.viewer }), 404, 'not_found');
    expect((await call(t.url, 'GET', '/v1/events/11', { token: tok.viewer })).body.seq).toBe(11);

    const list = await call(t.url, 'GET', '/v1/events', { token: tok.viewer });
    expect(list.body.events.map((e: { seq: number }) => e.seq)).toEqual([11, 12]);
    expect(list.body.total).toBe(2);
    const odd = await call(t.url, 'GET', '/v1/events?agent_id=odd&order=desc', { token: tok.viewer });
    expect(odd.body).toMatchObject({ total: 1, cursor: null });
    expect(odd.body.events.map((e: { seq: number }) => e.seq)).toEqual([11]);

    const verify = await call(t.url, 'GET', '/v1/events/verify', { token: tok.viewer });
    expect(verify.body).toMatchObject({ ok: true, prunedThrough: 10, checked: 2, expectedSize: 12, head: { size: 12 } });

    const cps = (await call(t.url, 'GET', '/v1/events/checkpoints', { token: tok.viewer })).body.data as { tree_size: number; root_hash: string }[];
    const at12 = cps.find((cp) => cp.tree_size === 12)!;
    const inclusion = await call(t.url, 'GET', '/v1/events/proofs/inclusion?seq=11&tree_size=12', { token: tok.viewer });
    expect(verifyInclusion(inclusion.body)).toBe(true);
    expect(inclusion.body.root_hash).toBe(at12.root_hash);
    expectEnvelope(await call(t.url, 'GET', '/v1/events/proofs/inclusion?seq=4', { token: tok.viewer }), 410, 'not_found');
    const consistency = await call(t.url, 'GET', '/v1/events/proofs/consistency?from=10&to=12', { token: tok.viewer });
    expect(verifyConsistency(consistency.body)).toBe(true);
    expect(consistency.body.from_root).toBe(cps.find((cp) => cp.tree_size === 10)!.root_hash);
    expectEnvelope(await call(t.url, 'GET', '/v1/events/proofs/consistency?from=5&to=12', { token: tok.viewer }), 410, 'not_found');

    // Appends continue the chain past the boundary.
    const more = await call(t.url, 'POST', '/v1/events', { token: tok.operator, body: ev(13) });
    expect(more.status).toBe(200);
    expect((await call(t.url, 'GET', '/v1/events/verify', { token: tok.viewer })).body).toMatchObject({ ok: true, checked: 3 });
  });

  it('the schedule is on with LEDGER_RETENTION_DAYS, and off (prunes nothing) by default', async () => {
    expect(t.gw.retention.enabled).toBe(true);
    const plain = await startTestGateway({ checkpointEvery: 5 });
    try {
      expect(plain.gw.retention.enabled).toBe(false);
      expect(await plain.gw.retention.runOnce()).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});
