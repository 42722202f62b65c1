import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, expectEnvelope, type TestGateway } from './helpers/start-test-gateway.js';
import type { MockUpstream } from './helpers/mock-upstream.js';
import { closeGatewayWithMock, startGatewayWithMock } from './helpers/gateway-with-mock.js';

/**
 * Never a served call without its ledger entry: every field that goes into an entry is capped before the call is
 * acted on, and what the ledger would refuse is refused to the client instead (docs/ledger.md).
 */
let t: TestGateway;
let mock: MockUpstream;
let tok: Awaited<ReturnType<TestGateway['tenant']>>;

beforeAll(async () => {
  // Bodies larger than a ledger entry may hold, so the gateway's own caps are what stands between them.
  ({ t, mock } = await startGatewayWithMock({ upstreamApiKey: 'sk-test', apiBodyLimit: 4 * 1024 * 1024 }));
  tok = await t.tenant('caps');
});
afterAll(() => closeGatewayWithMock({ t, mock }));
beforeEach(() => mock.reset());

async function entries(eventType: string): Promise<number> {
  await new Promise((r) => setTimeout(r, 50)); // past the group-commit window
  const r = await call(t.url, 'GET', `/v1/events?event_type=${eventType}`, { token: tok.viewer });
  return r.body.total as number;
}

describe('ledger fields are capped before the call is served', () => {
  it('a 1.1 M-character model is 400 and never forwarded', async () => {
    const r = await call(t.url, 'POST', '/v1/proxy/chat/completions', {
      token: tok.operator,
      headers: { 'x-svc-agent-id': 'cap-agent' },
      body: { model: 'm'.repeat(1_100_000), messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(expectEnvelope(r, 400, 'invalid_request').message).toMatch(/model: at most 256 characters/);
    expect(mock.received.length).toBe(0);
  });

  it('every served proxy call has its entry', async () => {
    const before = await entries('proxy.chat.completions');
    const r = await call(t.url, 'POST', '/v1/proxy/chat/completions', {
      token: tok.operator,
      headers: { 'x-svc-agent-id': 'cap-agent' },
      body: { model: 'm'.repeat(256), messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(r.status).toBe(200);
    expect(await entries('proxy.chat.completions')).toBe(before + 1);
  });

  it('a served proxy call is in the decision index, with its verdict and policy version, once its answer is back', async () => {
    const r = await call(t.url, 'POST', '/v1/proxy/chat/completions', {
      token: tok.operator,
      headers: { 'x-svc-agent-id': 'index-agent' },
      body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(r.status).toBe(200);
    const id = r.headers['x-svc-trace-id'] as string;
    expect(id).toMatch(/^dec_/);
    await new Promise((res) => setTimeout(res, 50)); // past LMDB's batched commit
    const stored = await call(t.url, 'GET', `/admin/decisions/${id}`, { token: tok.viewer });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ decision_id: id, agent_id: 'index-agent', execution_status: 'ALLOW', event_type: 'proxy.chat.completions', policy_version: r.headers['x-svc-policy'] });
  });

  it('a decision with a 1.5 MB context is answered only with its entry written', async () => {
    const before = await entries('decision');
    const r = await call(t.url, 'POST', '/v1/decide', {
      token: tok.operator,
      body: { agent_id: 'cap-agent', action: { type: 'read' }, context: { session_id: 's', notes: 'n'.repeat(1_500_000) } },
    });
    if (r.status === 200) expect(await entries('decision')).toBe(before + 1);
    else {
      expectEnvelope(r, 400, 'invalid_request');
      expect(await entries('decision')).toBe(before);
    }
  });

  it('an event larger than an entry may be is 400 and nothing is written', async () => {
    const before = await entries('big.event');
    const r = await call(t.url, 'POST', '/v1/events', { token: tok.operator, body: { event_type: 'big.event', payload: { text: 'x'.repeat(1_500_000) } } });
    expectEnvelope(r, 400, 'invalid_request');
    expect(await entries('big.event')).toBe(before);
  });
});
