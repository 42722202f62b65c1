import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

let t: TestGateway;
let a: Awaited<ReturnType<TestGateway['tenant']>>;
let b: Awaited<ReturnType<TestGateway['tenant']>>;

beforeAll(async () => {
  t = await startTestGateway();
  a = await t.tenant('dec-a');
  b = await t.tenant('dec-b');
  await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: { name: 'hold', type: 'content_filter', risk: 40, rules: { patterns: ['wire money'], action: 'REQUIRE_APPROVAL' } } });
  await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: { name: 'esc', type: 'content_filter', risk: 40, rules: { patterns: ['delete account'], action: 'ESCALATE' } } });
});
afterAll(() => t.close());

const decide = (token: string, text: string, agent = 'agent-a') =>
  call(t.url, 'POST', '/v1/decide', { token, body: { agent_id: agent, action: { type: 'chat', payload: { text } } } });

describe('GET /admin/decisions', () => {
  it('returns the tenant\'s decisions newest first, limited, with the audit record fields', async () => {
    const ids: string[] = [];
    for (const text of ['hello', 'wire money now', 'bye']) ids.push((await decide(a.operator, text)).body.envelope.decision_id);
    const r = await call(t.url, 'GET', '/admin/decisions?tenantId=dec-a&limit=2', { token: a.viewer });
    expect(r.status).toBe(200);
    expect(r.body.data.map((d: { decision_id: string }) => d.decision_id)).toEqual([ids[2], ids[1]]);
    const held = r.body.data[1];
    expect(held).toMatchObject({ decision_id: ids[1], tenant_id: 'dec-a', execution_status: 'REQUIRE_APPROVAL', risk_score: 40, event_type: 'decision' });
    expect(typeof held.trace_id).toBe('string');
    expect(new Date(held.created_at).toISOString()).toBe(held.created_at);
  });

  it('never shows another tenant\'s decisions, and 403s a foreign tenantId', async () => {
    const mine = (await decide(a.operator, 'private thing')).body.envelope.decision_id;
    const theirs = await call(t.url, 'GET', '/admin/decisions?limit=500', { token: b.viewer });
    expect(theirs.body.data.map((d: { decision_id: string }) => d.decision_id)).not.toContain(mine);
    expectEnvelope(await call(t.url, 'GET', '/admin/decisions?tenantId=dec-a', { token: b.viewer }), 403, 'permission_denied');
    expectEnvelope(await call(t.url, 'GET', `/admin/decisions/${mine}`, { token: b.viewer }), 404, 'not_found');
  });
});

describe('POST /admin/decisions/{id}/resolve', () => {
  it('resolves a held decision once, records who and when, and refuses everything else', async () => {
    const held = (await decide(a.operator, 'please wire money')).body.envelope.decision_id;
    const allowed = (await decide(a.operator, 'good morning')).body.envelope.decision_id;
    const escalated = (await decide(a.operator, 'delete account 42')).body.envelope.decision_id;

    expectEnvelope(await call(t.url, 'POST', `/admin/decisions/${held}/resolve`, { token: a.operator, body: { resolution: 'APPROVED' } }), 403, 'permission_denied');
    expectEnvelope(await call(t.url, 'POST', `/admin/decisions/${held}/resolve`, { token: a.admin, body: { resolution: 'MAYBE' } }), 400, 'invalid_request');
    expectEnvelope(await call(t.url, 'POST', `/admin/decisions/${held}/resolve`, { token: a.admin, body: {} }), 400, 'invalid_request');
    expectEnvelope(await call(t.url, 'POST', `/admin/decisions/${held}/resolve`, { token: b.admin, body: { resolution: 'APPROVED' } }), 404, 'not_found');
    expectEnvelope(await call(t.url, 'POST', '/admin/decisions/dec_nope/resolve', { token: a.admin, body: { resolution: 'APPROVED' } }), 404, 'not_found');
    expectEnvelope(await call(t.url, 'POST', `/admin/decisions/${allowed}/resolve`, { token: a.admin, body: { resolution: 'APPROVED' } }), 409, 'invalid_request');

    const ok = await call(t.url, 'POST', `/admin/decisions/${held}/resolve`, { token: a.admin, body: { resolution: 'APPROVED', note: 'checked with finance' } });
    expect(ok.status).toBe(200);
    expect(ok.body.resolution).toMatchObject({ status: 'APPROVED', note: 'checked with finance' });
    expect(ok.body.execution_status).toBe('REQUIRE_APPROVAL');
    expectEnvelope(await call(t.url, 'POST', `/admin/decisions/${held}/resolve`, { token: a.admin, body: { resolution: 'REJECTED' } }), 409, 'invalid_request');

    const rej = await call(t.url, 'POST', `/admin/decisions/${escalated}/resolve`, { token: a.admin, body: { resolution: 'REJECTED' } });
    expect(rej.body.resolution.status).toBe('REJECTED');
    const stored = await call(t.url, 'GET', `/admin/decisions/${held}`, { token: a.viewer });
    expect(stored.body.resolution.status).toBe('APPROVED');
  });
});

describe('concurrent resolves of one held decision', () => {
  it('exactly one wins, the rest are 409, and the ledger records one resolution', async () => {
    for (let round = 0; round < 5; round++) {
      const held = (await decide(a.operator, `wire money round ${round}`)).body.envelope.decision_id;
      const answers = await Promise.all(
        (['APPROVED', 'REJECTED', 'APPROVED', 'REJECTED'] as const).map((resolution) =>
          call(t.url, 'POST', `/admin/decisions/${held}/resolve`, { token: a.admin, body: { resolution, note: `racer ${resolution}` } }),
        ),
      );
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
      for (const r of answers.filter((x) => x.status === 409)) expectEnvelope(r, 409, 'invalid_request');
      const winner = answers.find((r) => r.status === 200)!;
      const stored = await call(t.url, 'GET', `/admin/decisions/${held}`, { token: a.viewer });
      expect(stored.body.resolution).toEqual(winner.body.resolution);
      const entries = await call(t.url, 'GET', '/v1/events?event_type=decision.resolved&limit=500', { token: a.viewer });
      const mine = entries.body.events.filter((e: { payload: { decision_id: string } }) => e.payload.decision_id === held);
      expect(mine).toHaveLength(1);
      expect(mine[0].payload.resolution).toEqual(winner.body.resolution);
    }
  });
});
