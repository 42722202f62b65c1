import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'undici';
import { call, expectEnvelope, startTestGateway, type CallResult, type TestGateway } from './helpers/start-test-gateway.js';

// Two threads take the agents' port's connections (AGENT_PORT, GATEWAY_THREADS=2): the main thread's agents' app and
// a request thread's, in turn, each new connection to one of them. The request thread answers the agents' calls
// itself, with its own caches over the same store, the same limit counters in shared memory and the same ledger
// writer; the gateway's port serves every route on the main thread. These check that a tenant still sees one gateway
// (docs/architecture.md, "Threads").

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ gatewayThreads: 2, agentPort: 0, ledgerWriter: 'thread' });
});
afterAll(() => t.close());

/** One call on a connection of its own to the gateway's port (admin calls). */
const fresh = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => on(t.url, method, path, opts);
/** One call on a connection of its own to the agents' port: consecutive calls land on the two threads in turn. */
const agents = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => on(t.agentsUrl, method, path, opts);

async function on(base: string, method: string, path: string, opts: Parameters<typeof call>[3]): Promise<CallResult> {
  const client = new Client(base);
  try {
    return await call(base, method, path, { ...opts, dispatcher: client });
  } finally {
    await client.close();
  }
}

const decide = (token: string, agent: string, text = 'hello') => agents('POST', '/v1/decide', { token, body: { agent_id: agent, action: { type: 'chat', payload: { text } } } });

describe('two request threads', () => {
  it('count a plan limit once: the community burst of 10 is admitted once across both threads, then 429', async () => {
    const tok = await t.tenant('burst', 'community');
    const statuses: number[] = [];
    for (let i = 0; i < 16; i++) statuses.push((await decide(tok.operator, 'a')).status);
    // The plan refills one request a second: these take well under two.
    const admitted = statuses.filter((s) => s === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(10);
    expect(admitted).toBeLessThanOrEqual(11);
    expect(statuses.filter((s) => s === 429).length).toBe(16 - admitted);
  });

  it('count a rate_limit policy once across both threads', async () => {
    const tok = await t.tenant('windows');
    expect((await fresh('POST', '/v1/policies', { token: tok.admin, body: { name: 'rl', type: 'rate_limit', risk: 40, rules: { limit: 5, window_s: 60, scope: 'tenant' } } })).status).toBe(200);
    const verdicts: string[] = [];
    for (let i = 0; i < 8; i++) verdicts.push((await decide(tok.operator, `agent-${i}`)).body.envelope.execution_status);
    expect(verdicts).toEqual(['ALLOW', 'ALLOW', 'ALLOW', 'ALLOW', 'ALLOW', 'DENY', 'DENY', 'DENY']);
  });

  it('act on a policy added, an agent suspended and a token revoked from the answer on, on every thread', async () => {
    const tok = await t.tenant('changes');
    for (let i = 0; i < 4; i++) expect((await decide(tok.operator, 'worker', 'the launch codes')).body.envelope.execution_status).toBe('ALLOW');
    expect((await fresh('POST', '/v1/policies', { token: tok.admin, body: { name: 'codes', type: 'content_filter', risk: 90, rules: { patterns: ['launch codes'], action: 'DENY' } } })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await decide(tok.operator, 'worker', 'the launch codes')).body.envelope.execution_status).toBe('DENY');

    expect((await fresh('POST', '/v1/agents/worker/suspend', { token: tok.admin })).status).toBe(200);
    for (let i = 0; i < 4; i++) {
      const r = await decide(tok.operator, 'worker');
      expect(r.body.envelope.execution_status).toBe('DENY');
      expect(r.headers['x-svc-rule']).toBe('agent_suspended');
    }
    expect((await fresh('POST', '/v1/agents/worker/resume', { token: tok.admin })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await decide(tok.operator, 'worker')).body.envelope.execution_status).toBe('ALLOW');

    const doomed = await t.gw.deps.tokens.create({ tenantId: 'changes', role: 'operator', name: 'doomed', expiresInDays: 1 });
    // Used on both threads, so both hold it in memory.
    for (let i = 0; i < 2; i++) expect((await decide(doomed.token, 'worker')).status).toBe(200);
    expect(await t.gw.deps.tokens.revoke(doomed.record.id)).toBe(true);
    // Revoked through `deps`, not an admin route: the request thread is told at once, which this waits for.
    await t.gw.threadsCaughtUp();
    for (let i = 0; i < 4; i++) expect((await decide(doomed.token, 'worker')).status).toBe(401);
  });

  it('answer reads made after a decision with it, wherever each was made: by id, in the list newest first, in the chain', async () => {
    const tok = await t.tenant('reads');
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await decide(tok.operator, `agent-${i % 3}`)).body.envelope.decision_id as string);
    for (const id of ids) expect((await fresh('GET', `/admin/decisions/${id}`, { token: tok.viewer })).status).toBe(200);
    const listed = await fresh('GET', '/admin/decisions?limit=8', { token: tok.viewer });
    expect(listed.body.data.map((d: { decision_id: string }) => d.decision_id)).toEqual([...ids].reverse());
    const events = await fresh('GET', '/v1/events?limit=100', { token: tok.viewer });
    expect(new Set(events.body.events.map((e: { decision: { decision_id: string } | null }) => e.decision?.decision_id))).toEqual(new Set(ids));
    expect((await fresh('GET', '/v1/events/verify', { token: tok.viewer })).body).toMatchObject({ ok: true, checked: 8 });
  });

  it('chain events ingested on both threads into the one chain, each durable with its seq before the answer', async () => {
    const tok = await t.tenant('events');
    for (let i = 0; i < 6; i++) {
      const r = await agents('POST', '/v1/events', { token: tok.operator, body: { event_type: 'tool_call', payload: { i }, metadata: { agent_id: 'e' } } });
      expect(r.status).toBe(200);
    }
    // Each answered once chained: in the order they were answered, whichever thread took each.
    const listed = await fresh('GET', '/v1/events?limit=10', { token: tok.viewer });
    expect(listed.body.events.map((e: { seq: number; payload: { i: number } }) => [e.seq, e.payload.i])).toEqual([0, 1, 2, 3, 4, 5].map((i) => [i + 1, i]));
    const batch = await agents('POST', '/v1/events/ingest/batch', { token: tok.operator, body: { events: [1, 2, 3].map((i) => ({ event_type: 'tool_call', payload: { i }, metadata: { agent_id: 'e' } })) } });
    expect(batch.body).toMatchObject({ accepted: 3, first_seq: 7, last_seq: 9 });
    expect((await fresh('GET', '/v1/events/verify', { token: tok.viewer })).body).toMatchObject({ ok: true, checked: 9 });
  });

  it("keep one agents' registry and one telemetry: decisions made on both threads register the agent and count once each", async () => {
    const tok = await t.tenant('seen');
    for (let i = 0; i < 6; i++) expect((await decide(tok.operator, 'seen-agent')).status).toBe(200);
    const agent = await fresh('GET', '/v1/agents/seen-agent', { token: tok.viewer });
    expect(agent.status).toBe(200);
    expect(agent.body.last_seen).not.toBeNull();
    await t.gw.deps.metrics.flush();
    const now = Math.floor(Date.now() / 1000);
    const stats = await fresh('GET', `/v1/telemetry/query/stats?metric=decision.count&from=${now - 60}&to=${now + 1}`, { token: tok.viewer });
    expect(stats.body.series.reduce((a: number, p: { value: number }) => a + p.value, 0)).toBe(6);
    const scraped = (await fresh('GET', '/v1/telemetry/metrics', { token: tok.admin })).text.split('\n');
    const allowed = scraped.find((l) => l.startsWith('aduana_decisions_total{') && l.includes('tenant="seen"') && l.includes('verdict="ALLOW"'));
    expect(allowed?.split(' ').at(-1)).toBe('6');
  });

  it("serve only the agents' calls on the agents' port, the same answer on every thread; the gateway's port serves every route, these too", async () => {
    const tok = await t.tenant('ports');
    for (let i = 0; i < 4; i++) {
      const admin = await agents('GET', '/admin/decisions', { token: tok.viewer });
      expect(expectEnvelope(admin, 404, 'not_found').message).toMatch(/not served on the agents' port.*the gateway's port serves every route/);
      // A known agents' path with another method: 405, as on the gateway's port.
      expectEnvelope(await agents('GET', '/v1/decide', { token: tok.operator }), 405, 'invalid_request');
      expectEnvelope(await agents('POST', '/v1/heartbeat', { token: tok.operator, body: {} }), 404, 'not_found');
    }
    const onMain = await fresh('POST', '/v1/decide', { token: tok.operator, body: { agent_id: 'a', action: { type: 'chat', payload: { text: 'hi' } } } });
    expect(onMain.status).toBe(200);
    expect((await fresh('GET', `/admin/decisions/${onMain.body.envelope.decision_id}`, { token: tok.viewer })).status).toBe(200);
    expect((await fresh('GET', '/v1/decide', { token: tok.operator })).status).toBe(405);
  });
});
