import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '@aduana/shared';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

let t: TestGateway;
let acme: Awaited<ReturnType<TestGateway['tenant']>>;
const decideBody = { agent_id: 'agent-1', action: { type: 'http', target: 'https://example.com', method: 'GET', payload: {} } };
const policyBody = { name: 'p', type: 'content_filter', risk: 10, rules: { patterns: ['forbidden'], action: 'DENY' } };

beforeAll(async () => {
  t = await startTestGateway();
  acme = await t.tenant('acme');
});
afterAll(() => t.close());

describe('PAT authentication', () => {
  it('answers 401 with the envelope when the Authorization header is missing, malformed or of another scheme', async () => {
    const variants: Record<string, string>[] = [{}, { authorization: 'Bearer' }, { authorization: 'Basic dXNlcjpwYXNz' }, { authorization: `Token ${acme.admin}` }];
    for (const headers of variants) {
      const r = await call(t.url, 'GET', '/v1/policies', { headers });
      expectEnvelope(r, 401, 'authentication_error');
    }
  });

  it('answers 401 for an unknown token, a token with a bad checksum and a random string', async () => {
    for (const token of [generateToken('pat'), acme.admin.slice(0, -1) + (acme.admin.endsWith('a') ? 'b' : 'a'), 'not-a-token', 'adu_pat_']) {
      expectEnvelope(await call(t.url, 'GET', '/v1/policies', { token }), 401, 'authentication_error');
    }
  });

  it('answers 401 for an expired token', async () => {
    const { tokens, store } = t.gw.deps;
    const { token, record } = await tokens.create({ tenantId: 'acme', role: 'admin', name: 'old', expiresInDays: 1 });
    expect((await call(t.url, 'GET', '/v1/policies', { token })).status).toBe(200);
    const hash = store.tokenIds.get(record.id) as string;
    // Written behind the token store's back, through the credential revision as every such change is, or the warm
    // principal stays.
    await store.credentials.change(store.root, () => store.tokens.put(hash, { ...record, expires_at: new Date(Date.now() - 1000).toISOString() }));
    const e = expectEnvelope(await call(t.url, 'GET', '/v1/policies', { token }), 401, 'authentication_error');
    expect(e.message).toMatch(/expired/);
  });

  it('answers 401 for a revoked token, at once', async () => {
    const token = await t.token('acme', 'viewer');
    expect((await call(t.url, 'GET', '/v1/policies', { token })).status).toBe(200);
    const id = t.gw.deps.authenticator.fromToken(token).id;
    expect(await t.gw.deps.tokens.revoke(id)).toBe(true);
    const e = expectEnvelope(await call(t.url, 'GET', '/v1/policies', { token }), 401, 'authentication_error');
    expect(e.message).toMatch(/revoked/);
  });

  it('stores only a hash of each token', () => {
    const raw = JSON.stringify([...t.gw.deps.store.tokens.getRange()]);
    expect(raw).not.toContain(acme.admin);
    expect(raw).not.toContain(acme.admin.slice(8, 38));
  });
});

describe('scopes (role table)', () => {
  it('lets a viewer read but not write (403 permission_denied)', async () => {
    expect((await call(t.url, 'GET', '/v1/policies', { token: acme.viewer })).status).toBe(200);
    expect((await call(t.url, 'GET', '/admin/decisions', { token: acme.viewer })).status).toBe(200);
    expectEnvelope(await call(t.url, 'POST', '/v1/decide', { token: acme.viewer, body: decideBody }), 403, 'permission_denied');
    expectEnvelope(await call(t.url, 'POST', '/v1/policies', { token: acme.viewer, body: policyBody }), 403, 'permission_denied');
  });

  it('lets an operator decide but not manage policies', async () => {
    expect((await call(t.url, 'POST', '/v1/decide', { token: acme.operator, body: decideBody })).status).toBe(200);
    expectEnvelope(await call(t.url, 'POST', '/v1/policies', { token: acme.operator, body: policyBody }), 403, 'permission_denied');
    expectEnvelope(await call(t.url, 'POST', '/v1/policies/apply-pack', { token: acme.operator, body: { pack: 'FREE_TIER_POLICIES' } }), 403, 'permission_denied');
    expectEnvelope(await call(t.url, 'DELETE', '/v1/policies/pol_x', { token: acme.operator }), 403, 'permission_denied');
  });

  it('lets an admin do all three', async () => {
    expect((await call(t.url, 'POST', '/v1/policies', { token: acme.admin, body: policyBody })).status).toBe(200);
    expect((await call(t.url, 'POST', '/v1/decide', { token: acme.admin, body: decideBody })).status).toBe(200);
    expect((await call(t.url, 'GET', '/v1/policies', { token: acme.admin })).status).toBe(200);
  });
});

describe('authentication service', () => {
  it('verifies a PAT with its role and space-separated scope, and reports bad tokens inactive', async () => {
    const r = await call(t.authUrl, 'GET', '/verify', { token: acme.operator });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ active: true, type: 'pat', role: 'operator', scope: 'runtime:read runtime:write' });
    const bad = await call(t.authUrl, 'GET', '/verify', { token: generateToken('pat') });
    expect(bad.status).toBe(200);
    expect(bad.body).toEqual({ active: false });
    expectEnvelope(await call(t.authUrl, 'GET', '/verify'), 401, 'authentication_error');
  });

  it('issues a PAT to an admin (shown once, then usable) and refuses an operator', async () => {
    const r = await call(t.authUrl, 'POST', '/token', { token: acme.admin, body: { name: 'ci', role: 'viewer', expires_in_days: 7 } });
    expect(r.status).toBe(200);
    expect(r.body.token).toMatch(/^adu_pat_/);
    expect(Date.parse(r.body.expires_at) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    expect((await call(t.url, 'GET', '/v1/policies', { token: r.body.token })).status).toBe(200);
    expectEnvelope(await call(t.url, 'POST', '/v1/decide', { token: r.body.token, body: decideBody }), 403, 'permission_denied');
    expectEnvelope(await call(t.authUrl, 'POST', '/token', { token: acme.operator, body: { name: 'x', role: 'viewer' } }), 403, 'permission_denied');
    expectEnvelope(await call(t.authUrl, 'POST', '/token', { token: acme.admin, body: { name: 'x', role: 'root' } }), 400, 'invalid_request');
    expect((await call(t.authUrl, 'GET', '/health')).body.status).toBe('ok');
  });
});
