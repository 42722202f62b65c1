import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, expectEnvelope, type TestGateway } from './helpers/start-test-gateway.js';
import type { MockUpstream } from './helpers/mock-upstream.js';
import { closeGatewayWithMock, startGatewayWithMock } from './helpers/gateway-with-mock.js';

let t: TestGateway;
let mock: MockUpstream;
let tok: Awaited<ReturnType<TestGateway['tenant']>>;

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] };

beforeAll(async () => {
  ({ t, mock } = await startGatewayWithMock({ upstreamApiKey: 'sk-sidecar-held' }));
  tok = await t.tenant('declared-headers');
});
afterAll(() => closeGatewayWithMock({ t, mock }));
beforeEach(() => mock.reset());

describe('the headers the proxy routes declare reach the proxy', () => {
  it('x-svc-session-id over 256 characters → 400 before the upstream is contacted; 256 is served', async () => {
    const long = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: tok.operator, headers: { 'x-svc-agent-id': 'a', 'x-svc-session-id': 's'.repeat(257) }, body: chat });
    expect(expectEnvelope(long, 400, 'invalid_request').message).toContain('x-svc-session-id');
    expect(mock.received).toHaveLength(0);

    const ok = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: tok.operator, headers: { 'x-svc-agent-id': 'a', 'x-svc-session-id': 's'.repeat(256) }, body: chat });
    expect(ok.status).toBe(200);
    expect(mock.received).toHaveLength(1);
  });

  it('the models passthrough forwards the client key and its routing headers', async () => {
    const r = await call(t.url, 'GET', '/v1/proxy/models', {
      token: tok.operator,
      headers: { 'x-svc-agent-id': 'a', 'x-forwarded-authorization': 'Bearer sk-client-own', 'openai-organization': 'org-c', 'openai-project': 'proj-c' },
    });
    expect(r.status).toBe(200);
    expect(r.headers['x-svc-verdict']).toBe('ALLOWED');
    const got = mock.received[0]?.headers ?? {};
    expect(got['authorization']).toBe('Bearer sk-client-own');
    expect(got['openai-organization']).toBe('org-c');
    expect(got['openai-project']).toBe('proj-c');
  });
});
