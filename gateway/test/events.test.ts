import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCheckpointSignature, verifyConsistency, verifyInclusion } from '../src/ledger/index.js';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ checkpointEvery: 5 });
});
afterAll(() => t.close());

const ev = (i: number, agent = 'agent-1', type = 'tool.invoked') => ({ event_type: type, payload: { step: i, note: `event ${i}` }, metadata: { agent_id: agent, session_id: 's1', timestamp: '2026-11-22T10:00:00Z' } });

describe('POST /v1/events', () => {
  it('appends, risk-scores and answers {envelope, trace_id} without policies_evaluated; the entry is chained', async () => {
    const tok = await t.tenant('ev-basic');
    await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'f', type: 'content_filter', risk: 70, rules: { patterns: ['exfiltrate'], action: 'ESCALATE' } } });
    const r = await call(t.url, 'POST', '/v1/events', { token: tok.operator, body: ev(1) });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.envelope).sort()).toEqual(['decision_id', 'execution_status', 'latency_ms', 'risk_score', 'tenant_id', 'timestamp', 'trace_id']);
    expect(r.body.envelope).toMatchObject({ execution_status: 'ALLOW', risk_score: 0, tenant_id: 'ev-basic' });
    expect(r.body.trace_id).toBe(r.body.envelope.trace_id);
    const risky = await call(t.url, 'POST', '/v1/events', { token: tok.operator, body: { event_type: 'note', payload: { text: 'agent tried to exfiltrate the db' } } });
    expect(risky.body.envelope).toMatchObject({ execution_status: 'ESCALATE', risk_score: 70 });

    const list = await call(t.url, 'GET', '/v1/events', { token: tok.viewer });
    // The policy's creation is chained first (an admin action, docs/ledger.md), then the two events.
    expect(list.body.total).toBe(3);
    const [created, first, second] = list.body.events;
    expect(created).toMatchObject({ seq: 1, event_type: 'policy.created', prev_hash: '0'.repeat(64) });
    expect(first).toMatchObject({ seq: 2, tenant_id: 'ev-basic', event_type: 'tool.invoked', payload: { step: 1, note: 'event 1' }, prev_hash: created.hash });
    expect(first.metadata).toEqual({ agent_id: 'agent-1', session_id: 's1', timestamp: '2026-11-22T10:00:00Z' });
    expect(first.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(second).toMatchObject({ seq: 3, prev_hash: first.hash });
    expect(second.decision).toMatchObject({ execution_status: 'ESCALATE', decision_id: risky.body.envelope.decision_id });
    const one = await call(t.url, 'GET', '/v1/events/3', { token: tok.viewer });
    expect(one.body).toEqual(second);
    expectEnvelope(await call(t.url, 'GET', '/v1/events/99', { token: tok.viewer }), 404, 'not_found');
    expectEnvelope(await call(t.url, 'GET', '/v1/events/abc', { token: tok.viewer }), 404, 'not_found');
  });

  it('refuses malformed events (400) and a foreign tenant (403), writing nothing', async () => {
    const tok = await t.tenant('ev-bad');
    for (const body of [{}, { event_type: 'x' }, { event_type: '', payload: {} }, { event_type: 'x', payload: 'text' }, { event_type: 'x', payload: {}, metadata: { timestamp: 'yesterday' } },
      { event_type: 'x', payload: {}, metadata: { agent_id: 7 } }, { event_type: 'bad\u0001type', payload: {} }, { event_type: 'x', payload: {}, extra: 1 }, [ev(1)]]) {
      expectEnvelope(await call(t.url, 'POST', '/v1/events', { token: tok.operator, body }), 400, 'invalid_request');
    }
    expectEnvelope(await call(t.url, 'POST', '/v1/events', { token: tok.operator, body: { ...ev(1), metadata: { tenant_id: 'someone-else' } } }), 403, 'permission_denied');
    expectEnvelope(await call(t.url, 'POST', '/v1/events', { token: tok.viewer, body: ev(1) }), 403, 'permission_denied');
    expect((await call(t.url, 'GET', '/v1/events', { token: tok.viewer })).body.total).toBe(0);
  });
});

describe('POST /v1/events/ingest/batch', () => {
  it('appends atomically and answers the count, first/last seq and one envelope per event', async () => {
    const tok = await t.tenant('ev-batch');
    await call(t.url, 'POST', '/v1/events', { token: tok.operator, body: ev(0) });
    const r = await call(t.url, 'POST', '/v1/events/ingest/batch', { token: tok.operator, body: { events: [ev(1), ev(2), ev(3)] } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ accepted: 3, first_seq: 2, last_seq: 4 });
    expect(r.body.envelopes).toHaveLength(3);
  });

  it('over the limit → 413, one invalid item → 400 naming its index; nothing is written either way', async () => {
    const tok = await t.tenant('ev-batch-bad');
    const tooMany = Array.from({ length: 101 }, (_, i) => ev(i));
    expectEnvelope(await call(t.url, 'POST', '/v1/events/ingest/batch', { token: tok.operator, body: { events: tooMany } }), 413, 'payload_too_large');
    const oneBad = [ev(1), ev(2), { event_type: 'x', payload: 42 }, ev(4)];
    const r = await call(t.url, 'POST', '/v1/events/ingest/batch', { token: tok.operator, body: { events: oneBad } });
    expect(expectEnvelope(r, 400, 'invalid_request').message).toContain('events[2]');
    expectEnvelope(await call(t.url, 'POST', '/v1/events/ingest/batch', { token: tok.operator, body: { events: [] } }), 400, 'invalid_request');
    expectEnvelope(await call(t.url, 'POST', '/v1/events/ingest/batch', { token: tok.operator, body: { items: [] } }), 400, 'invalid_request');
    expect((await call(t.url, 'GET', '/v1/events', { token: tok.viewer })).body.total).toBe(0);
    const ok = await call(t.url, 'POST', '/v1/events/ingest/batch', { token: tok.operator, body: { events: Array.from({ length: 100 }, (_, i) => ev(i)) } });
    expect(ok.body).toMatchObject({ accepted: 100, first_seq: 1, last_seq: 100 });
  });
});

describe('GET /v1/events', () => {
  it('paginates to the last page (cursor null), filters by agent and event type, and isolates tenants', async () => {
    const tok = await t.tenant('ev-list');
    const other = await t.tenant('ev-list-other');
    const events = Array.from({ length: 12 }, (_, i) => ev(i, i % 3 === 0 ? 'agent-a' : 'agent-b', i % 2 === 0 ? 'even' : 'odd'));
    await call(t.url, 'POST', '/v1/events/ingest/batch', { token: tok.operator, body: { events } });
    await call(t.url, 'POST', '/v1/events', { token: other.operator, body: ev(99, 'agent-a') });
    const seqs: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const r = await call(t.url, 'GET', `/v1/events${q}`, { token: tok.viewer });
      expect(r.body.total).toBe(12);
      seqs.push(...r.body.events.map((e: { seq: number }) => e.seq));
      cursor = r.body.cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(3);
    expect(seqs).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    const a = await call(t.url, 'GET', '/v1/events?agentId=agent-a', { token: tok.viewer });
    expect(a.body.total).toBe(4);
    expect(a.body.events.every((e: { metadata: { agent_id: string } }) => e.metadata.agent_id === 'agent-a')).toBe(true);
    const odd = await call(t.url, 'GET', '/v1/events?event_type=odd&limit=2', { token: tok.viewer });
    expect(odd.body.total).toBe(6);
    expect(odd.body.events).toHaveLength(2);
    expect(odd.body.cursor).not.toBeNull();
    const desc = await call(t.url, 'GET', '/v1/events?order=desc&limit=1', { token: tok.viewer });
    expect(desc.body.events[0].seq).toBe(12);
    expect((await call(t.url, 'GET', '/v1/events', { token: other.viewer })).body.total).toBe(1);
    expectEnvelope(await call(t.url, 'GET', '/v1/events?tenantId=ev-list', { token: other.viewer }), 403, 'permission_denied');
    expectEnvelope(await call(t.url, 'GET', '/v1/events?cursor=not-a-cursor', { token: tok.viewer }), 400, 'invalid_request');
  });

  it('decisions and proxy calls share the chain with events; a resolution is chained too', async () => {
    const tok = await t.tenant('ev-chain');
    await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'hold', type: 'content_filter', risk: 10, rules: { patterns: ['refund'], action: 'REQUIRE_APPROVAL' } } });
    await call(t.url, 'POST', '/v1/events', { token: tok.operator, body: ev(1) });
    const d = await call(t.url, 'POST', '/v1/decide', { token: tok.operator, body: { agent_id: 'agent-1', action: { type: 'refund', payload: { amount: 10 } } } });
    await expect.poll(async () => (await call(t.url, 'GET', '/v1/events', { token: tok.viewer })).body.total, { timeout: 3000 }).toBe(3);
    await call(t.url, 'POST', `/admin/decisions/${d.body.envelope.decision_id}/resolve`, { token: tok.admin, body: { resolution: 'APPROVED' } });
    const list = (await call(t.url, 'GET', '/v1/events', { token: tok.viewer })).body.events;
    expect(list.map((e: { event_type: string }) => e.event_type)).toEqual(['policy.created', 'tool.invoked', 'decision', 'decision.resolved']);
    expect(list[2].decision).toMatchObject({ decision_id: d.body.envelope.decision_id, execution_status: 'REQUIRE_APPROVAL' });
    expect(list[3].payload).toMatchObject({ decision_id: d.body.envelope.decision_id, resolution: { status: 'APPROVED' } });
    expect(list[3].prev_hash).toBe(list[2].hash);
  });
});

describe('verification and proofs', () => {
  it('verifies a clean chain, and finds a value changed in LMDB behind the API\'s back at the right seq', async () => {
    const tok = await t.tenant('ev-tamper');
    await call(t.url, 'POST', '/v1/events/ingest/batch', { token: tok.operator, body: { events: Array.from({ length: 8 }, (_, i) => ({ event_type: 'x', payload: { value: `secret-${i}` } })) } });
    const ok = await call(t.url, 'GET', '/v1/events/verify', { token: tok.viewer });
    expect(ok.body).toMatchObject({ ok: true, checked: 8, firstBrokenSeq: null, head: { size: 8 } });

    const entries = t.gw.deps.store.root.openDB<Buffer, (string | number)[]>({ name: 'ledger_entries', encoding: 'binary' });
    const record = Buffer.from(entries.get(['ev-tamper', 5]) as Buffer);
    const at = record.indexOf('secret-4');
    expect(at).toBeGreaterThan(0);
    record.write('secret-X', at);
    await entries.put(['ev-tamper', 5], record);
    const bad = await call(t.url, 'GET', '/v1/events/verify', { token: tok.viewer });
    expect(bad.body).toMatchObject({ ok: false, firstBrokenSeq: 5, checked: 4 });

    const other = await t.tenant('ev-tamper-2');
    await call(t.url, 'POST', '/v1/events/ingest/batch', { token: other.operator, body: { events: Array.from({ length: 6 }, (_, i) => ev(i)) } });
    await entries.remove(['ev-tamper-2', 3]);
    const gone = await call(t.url, 'GET', '/v1/events/verify', { token: other.viewer });
    expect(gone.body).toMatchObject({ ok: false, firstBrokenSeq: 3 });
  });

  it('serves inclusion and consistency proofs that verify against a signed checkpoint; forged ones fail', async () => {
    const tok = await t.tenant('ev-proofs');
    // A checkpoint is signed once CHECKPOINT_EVERY (5 here) more entries are durable: two batches, two checkpoints.
    const checkpointCount = async () => (await call(t.url, 'GET', '/v1/events/checkpoints', { token: tok.viewer })).body.data.length;
    await call(t.url, 'POST', '/v1/events/ingest/batch', { token: tok.operator, body: { events: Array.from({ length: 6 }, (_, i) => ev(i)) } });
    await expect.poll(checkpointCount, { timeout: 5000 }).toBe(1);
    await call(t.url, 'POST', '/v1/events/ingest/batch', { token: tok.operator, body: { events: Array.from({ length: 6 }, (_, i) => ev(i + 6)) } });
    await expect.poll(checkpointCount, { timeout: 5000 }).toBe(2);
    const cps = await call(t.url, 'GET', '/v1/events/checkpoints', { token: tok.viewer });
    const latest = (await call(t.url, 'GET', '/v1/events/checkpoints/latest', { token: tok.viewer })).body;
    expect(verifyCheckpointSignature(latest.checkpoint, latest.public_key)).toBe(true);
    const size = latest.checkpoint.tree_size as number;

    const inc = (await call(t.url, 'GET', `/v1/events/proofs/inclusion?seq=3&tree_size=${size}`, { token: tok.viewer })).body;
    expect(inc.root_hash).toBe(latest.checkpoint.root_hash);
    expect(verifyInclusion(inc)).toBe(true);
    const forged = { ...inc, audit_path: [...inc.audit_path] };
    forged.audit_path[0] = forged.audit_path[0].replace(/^./, (c: string) => (c === '0' ? '1' : '0'));
    expect(verifyInclusion(forged)).toBe(false);
    expect(verifyInclusion({ ...inc, entry_hash: '00'.repeat(32) })).toBe(false);

    const first = cps.body.data[0];
    const cons = (await call(t.url, 'GET', `/v1/events/proofs/consistency?from=${first.tree_size}&to=${size}`, { token: tok.viewer })).body;
    expect(cons.from_root).toBe(first.root_hash);
    expect(verifyConsistency(cons)).toBe(true);
    expect(verifyConsistency({ ...cons, to_root: '11'.repeat(32) })).toBe(false);

    expectEnvelope(await call(t.url, 'GET', '/v1/events/proofs/inclusion?seq=999', { token: tok.viewer }), 404, 'not_found');
    expectEnvelope(await call(t.url, 'GET', '/v1/events/proofs/inclusion', { token: tok.viewer }), 400, 'invalid_request');
    expectEnvelope(await call(t.url, 'GET', '/v1/events/proofs/consistency?from=0', { token: tok.viewer }), 400, 'invalid_request');
  });
});
