import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import type { MockUpstream } from './helpers/mock-upstream.js';
import { closeGatewayWithMock, startGatewayWithMock } from './helpers/gateway-with-mock.js';

let t: TestGateway;
let mock: MockUpstream;
let a: Awaited<ReturnType<TestGateway['tenant']>>;
let policyId: string;

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] };

beforeAll(async () => {
  ({ t, mock } = await startGatewayWithMock({ upstreamApiKey: 'sk-sidecar-held' }));
  a = await t.tenant('param-a');
  await t.tenant('param-b');
  policyId = (await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: { name: 'p', type: 'content_filter', risk: 1, rules: { patterns: ['zzz'] } } })).body.id;
});
afterAll(() => closeGatewayWithMock({ t, mock }));
beforeEach(() => mock.reset());

describe('tenant parameters are checked strictly, on every route', () => {
  it('exactly one tenantId/tenant_id equal to the caller\'s tenant passes', async () => {
    for (const q of ['tenantId=param-a', 'tenant_id=param-a', 'limit=5&tenantId=param-a']) {
      expect((await call(t.url, 'GET', `/v1/policies?${q}`, { token: a.viewer })).status, q).toBe(200);
    }
  });

  it('empty or repeated tenant parameters are a 400; another tenant is a 403, wherever the parameter hides', async () => {
    const bad: [string, number][] = [
      ['tenantId=&tenant_id=param-b', 400],
      ['tenantId=', 400],
      ['tenant_id=', 400],
      ['tenantId=param-a&tenantId=param-b', 400],
      ['tenantId=param-a&tenant_id=param-a', 400],
      ['tenant_id=param-a&tenant_id=param-a', 400],
      ['tenantId=param-b', 403],
      ['tenant%5Fid=param-b', 403],
      ['%74enantId=param-b', 403],
    ];
    for (const [q, status] of bad) {
      expectEnvelope(await call(t.url, 'GET', `/v1/policies?${q}`, { token: a.viewer }), status, status === 400 ? 'invalid_request' : 'permission_denied');
      expectEnvelope(await call(t.url, 'GET', `/admin/decisions?${q}`, { token: a.viewer }), status, status === 400 ? 'invalid_request' : 'permission_denied');
    }
  });

  it('routes that do not read a tenant parameter still refuse a foreign one (and change nothing)', async () => {
    expectEnvelope(await call(t.url, 'GET', `/v1/policies/${policyId}?tenantId=param-b`, { token: a.viewer }), 403, 'permission_denied');
    expectEnvelope(await call(t.url, 'GET', '/v1/events/checkpoints?tenant_id=param-b', { token: a.viewer }), 403, 'permission_denied');
    expectEnvelope(await call(t.url, 'DELETE', `/v1/policies/${policyId}?tenantId=param-b`, { token: a.admin }), 403, 'permission_denied');
    expectEnvelope(await call(t.url, 'POST', '/v1/decide?tenantId=&tenantId=param-b', { token: a.operator, body: { agent_id: 'x', action: { type: 'x' } } }), 400, 'invalid_request');
    expect((await call(t.url, 'GET', `/v1/policies/${policyId}`, { token: a.viewer })).status).toBe(200);
    // The proxy too, answered as its refusals are: with the verdict headers, and the upstream never called.
    const proxied = await call(t.url, 'POST', '/v1/proxy/chat/completions?tenant_id=param-b', { token: a.operator, headers: { 'x-svc-agent-id': 'bot' }, body: chat });
    expectEnvelope(proxied, 403, 'permission_denied');
    expect(proxied.headers['x-svc-verdict']).toBe('DENIED');
    expect(mock.received).toHaveLength(0);
  });

  it('a tenant_id in a body must be the caller\'s tenant: an empty one is a 400, another a 403', async () => {
    expectEnvelope(await call(t.url, 'POST', '/v1/decide', { token: a.operator, body: { tenant_id: '', agent_id: 'x', action: { type: 'x' } } }), 400, 'invalid_request');
    expectEnvelope(await call(t.url, 'POST', '/v1/decide', { token: a.operator, body: { tenant_id: 'param-b', agent_id: 'x', action: { type: 'x' } } }), 403, 'permission_denied');
    expect((await call(t.url, 'POST', '/v1/decide', { token: a.operator, body: { tenant_id: 'param-a', agent_id: 'x', action: { type: 'x' } } })).status).toBe(200);
    const before = (await call(t.url, 'GET', '/v1/policies', { token: a.admin })).body.total;
    expectEnvelope(await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: { tenant_id: '', name: 'q', type: 'content_filter', risk: 1, rules: { patterns: ['q'] } } }), 400, 'invalid_request');
    expect((await call(t.url, 'GET', '/v1/policies', { token: a.admin })).body.total).toBe(before);
  });
});

describe('provider routing headers (OpenAI-Organization, OpenAI-Project)', () => {
  const routing = { 'openai-organization': 'org-client', 'openai-project': 'proj-client' };

  it('are not sent with the sidecar\'s own provider key', async () => {
    const r = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: a.operator, headers: { 'x-svc-agent-id': 'bot', ...routing }, body: chat });
    expect(r.status).toBe(200);
    const got = mock.received.at(-1)!.headers;
    expect(got['authorization']).toBe('Bearer sk-sidecar-held');
    expect(got['openai-organization']).toBeUndefined();
    expect(got['openai-project']).toBeUndefined();
  });

  it('are sent when the client brings its own provider key', async () => {
    const r = await call(t.url, 'POST', '/v1/proxy/chat/completions', {
      token: a.operator,
      headers: { 'x-svc-agent-id': 'bot', 'x-forwarded-authorization': 'Bearer sk-client-own', ...routing },
      body: chat,
    });
    expect(r.status).toBe(200);
    const got = mock.received.at(-1)!.headers;
    expect(got['authorization']).toBe('Bearer sk-client-own');
    expect(got['openai-organization']).toBe('org-client');
    expect(got['openai-project']).toBe('proj-client');
  });

  it('are sent with the sidecar\'s key when configuration says so', async () => {
    const g = await startTestGateway({ upstreamBaseUrl: mock.url, upstreamApiKey: 'sk-sidecar-held', forwardProviderRoutingHeaders: true });
    try {
      const tok = await g.tenant('routing');
      const r = await call(g.url, 'GET', '/v1/proxy/models', { token: tok.operator, headers: { 'x-svc-agent-id': 'bot', ...routing } });
      expect(r.status).toBe(200);
      const got = mock.received.at(-1)!.headers;
      expect(got['authorization']).toBe('Bearer sk-sidecar-held');
      expect(got['openai-organization']).toBe('org-client');
    } finally {
      await g.close();
    }
  });
});
