import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, expectEnvelope, type TestGateway } from './helpers/start-test-gateway.js';
import type { MockUpstream } from './helpers/mock-upstream.js';
import { closeGatewayWithMock, startGatewayWithMock } from './helpers/gateway-with-mock.js';

/**
 * An unbound token lets its holder name any agent, so per-agent limits are only as strong as the binding: tokens can
 * be bound to one agent, and budgets can be tenant-wide (docs/policies.md, "Agents and tokens").
 */
let t: TestGateway;
let mock: MockUpstream;

beforeAll(async () => {
  ({ t, mock } = await startGatewayWithMock({ upstreamApiKey: 'sk-test' }));
});
afterAll(() => closeGatewayWithMock({ t, mock }));
beforeEach(() => mock.reset());

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
const proxy = (token: string, agent: string) => call(t.url, 'POST', '/v1/proxy/chat/completions', { token, headers: { 'x-svc-agent-id': agent }, body: chat });
const statuses = async (token: string, agent: string, n: number) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await proxy(token, agent)).status);
  return out;
};

describe('budgets and agent ids', () => {
  it('a tenant-scope budget is not reset by changing x-svc-agent-id', async () => {
    const tok = await t.tenant('bind-budget');
    const p = await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'spend', type: 'budget', risk: 50, rules: { max_cost_brl: 0.00002, period: 'day', scope: 'tenant' } } });
    expect(p.status).toBe(200);
    expect(await statuses(tok.operator, 'bud-x', 2)).toEqual([200, 403]);
    expect(await statuses(tok.operator, 'bud-y', 1)).toEqual([403]);
    expect(await statuses(tok.operator, 'bud-z', 1)).toEqual([403]);
  });

  it('a token bound to an agent (auth service /token agent_id) may act only as that agent', async () => {
    const tok = await t.tenant('bind-token');
    const issued = await call(t.authUrl, 'POST', '/token', { token: tok.admin, body: { name: 'bot', role: 'operator', agent_id: 'bot-1' } });
    expect(issued.status).toBe(200);
    expect(issued.body.agent_id).toBe('bot-1');
    const bound = issued.body.token as string;

    expect((await proxy(bound, 'bot-1')).status).toBe(200);
    const other = await proxy(bound, 'bot-2');
    const e = expectEnvelope(other, 403, 'permission_denied');
    expect(e.rule).toBe('agent_binding');
    expect(e.message).toMatch(/bound to agent "bot-1"/);
    expect(mock.received.length).toBe(1);

    const d1 = await call(t.url, 'POST', '/v1/decide', { token: bound, body: { agent_id: 'bot-1', action: { type: 'read' } } });
    expect(d1.status).toBe(200);
    const d2 = await call(t.url, 'POST', '/v1/decide', { token: bound, body: { agent_id: 'bot-2', action: { type: 'read' } } });
    expect(expectEnvelope(d2, 403, 'permission_denied').rule).toBe('agent_binding');

    const e1 = await call(t.url, 'POST', '/v1/events', { token: bound, body: { event_type: 'x', payload: {}, metadata: { agent_id: 'bot-2' } } });
    expectEnvelope(e1, 403, 'permission_denied');
    // An event without an agent id is the bound agent's.
    const e2 = await call(t.url, 'POST', '/v1/events', { token: bound, body: { event_type: 'x', payload: {} } });
    expect(e2.status).toBe(200);
    const listed = await call(t.url, 'GET', '/v1/events?agent_id=bot-1&event_type=x', { token: tok.viewer });
    expect(listed.body.total).toBe(1);

    const bad = await call(t.authUrl, 'POST', '/token', { token: tok.admin, body: { name: 'bot', role: 'operator', agent_id: 'bad\u0001id' } });
    expectEnvelope(bad, 400, 'invalid_request');
  });
});

describe('bond enforcement', () => {
  const flag = { name: 'flag', type: 'content_filter', risk: 30, rules: { patterns: ['transfer'], action: 'FLAG' } };
  const decide = (token: string, agent: string, context: object) =>
    call(t.url, 'POST', '/v1/decide', { token, body: { agent_id: agent, action: { type: 'pay', payload: { op: 'transfer 10' } }, context } });

  it('a claimed risk_budget never exceeds the policy ceiling max_risk_budget', async () => {
    const tok = await t.tenant('bond-ceiling');
    await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: flag });
    const b = await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'bond', type: 'bond_enforcement', risk: 50, rules: { max_risk_budget: 20 } } });
    expect(b.status).toBe(200);
    const r = await decide(tok.operator, 'a1', { session_id: 's', risk_budget: 1000 });
    expect(r.body.envelope.execution_status).toBe('REQUIRE_APPROVAL');
  });

  it("session risk is kept per (agent, session): one agent's session does not spend another's", async () => {
    const tok = await t.tenant('bond-keys');
    await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: flag });
    await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'bond', type: 'bond_enforcement', risk: 50, rules: { default_budget: 50 } } });
    expect((await decide(tok.operator, 'agent-a', { session_id: 'shared' })).body.envelope.execution_status).toBe('ALLOW');
    expect((await decide(tok.operator, 'agent-a', { session_id: 'shared' })).body.envelope.execution_status).toBe('REQUIRE_APPROVAL');
    expect((await decide(tok.operator, 'agent-b', { session_id: 'shared' })).body.envelope.execution_status).toBe('ALLOW');
  });
});
