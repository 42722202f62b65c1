import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

/** `PUT /admin/tenants/{id}/plan` (issue 36, item 1): an admin changes its own tenant's plan; the ledger records it. */
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const setPlan = (token: string, tenant: string, body: unknown) => call(t.url, 'PUT', `/admin/tenants/${tenant}/plan`, { token, body });
const planEntries = async (token: string) => (await call(t.url, 'GET', '/v1/events?event_type=tenant.plan_changed', { token })).body.events as Array<Record<string, unknown>>;

describe('changing a tenant plan', () => {
  it('200: the new plan is in force at once, and the change is chained in the tenant ledger (from, to, who)', async () => {
    const tok = await t.tenant('growing', 'community');
    // The community burst (10) spent: the next call is a 429.
    for (let i = 0; i < 10; i++) await call(t.url, 'GET', '/v1/policies', { token: tok.viewer });
    expectEnvelope(await call(t.url, 'GET', '/v1/policies', { token: tok.viewer }), 429, 'rate_limit_exceeded');

    // The change itself is admitted under the plan in force, so it waits for the bucket to have room again.
    let r = await setPlan(tok.admin, 'growing', { plan: 'enterprise' });
    for (let i = 0; r.status === 429 && i < 40; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      r = await setPlan(tok.admin, 'growing', { plan: 'enterprise' });
    }
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id: 'growing', plan: 'enterprise', plan_changed: { from: 'community', to: 'enterprise' } });
    const adminId = t.gw.deps.tokens.findByToken(tok.admin)!.id;
    expect(r.body.plan_changed.by).toBe(adminId);

    // In force at once (no 5 s wait for the plan cache): thirty quick calls, no 429.
    const statuses = await Promise.all(Array.from({ length: 30 }, () => call(t.url, 'GET', '/v1/policies', { token: tok.viewer }).then((x) => x.status)));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);

    const entries = await planEntries(tok.viewer);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ event_type: 'tenant.plan_changed', payload: { by: adminId, from: 'community', to: 'enterprise' }, metadata: { trace_id: r.headers['x-svc-trace-id'] } });
    expect((await call(t.url, 'GET', '/v1/events/verify', { token: tok.viewer })).body.ok).toBe(true);

    // The same plan again: 200, nothing changes, nothing more is chained.
    const again = await setPlan(tok.admin, 'growing', { plan: 'enterprise' });
    expect(again.status).toBe(200);
    expect(again.body.plan_changed).toEqual(r.body.plan_changed);
    expect(await planEntries(tok.viewer)).toHaveLength(1);
  });

  it('403 for a token without admin:manage, and for another tenant (whether or not it exists); nothing changes', async () => {
    const tok = await t.tenant('steady', 'professional');
    const other = await t.tenant('neighbour', 'community');
    expect(expectEnvelope(await setPlan(tok.operator, 'steady', { plan: 'enterprise' }), 403, 'permission_denied').message).toMatch(/admin:manage/);
    expectEnvelope(await setPlan(tok.viewer, 'steady', { plan: 'enterprise' }), 403, 'permission_denied');
    expect(expectEnvelope(await setPlan(tok.admin, 'neighbour', { plan: 'enterprise' }), 403, 'permission_denied').message).toBe('tenant does not match the token');
    expectEnvelope(await setPlan(tok.admin, 'no-such-tenant', { plan: 'enterprise' }), 403, 'permission_denied');
    expect(t.gw.deps.tenants.get('steady')?.plan).toBe('professional');
    expect(t.gw.deps.tenants.get('neighbour')?.plan).toBe('community');
    expect(await planEntries(tok.viewer)).toEqual([]);
    expect(await planEntries(other.viewer)).toEqual([]);
  });

  it('400 for a plan that does not exist, a missing or extra field, a body that is not JSON; nothing changes', async () => {
    const tok = await t.tenant('picky', 'professional');
    expect(expectEnvelope(await setPlan(tok.admin, 'picky', { plan: 'platinum' }), 400, 'invalid_request').message).toMatch(/community.*professional.*enterprise/);
    expectEnvelope(await setPlan(tok.admin, 'picky', {}), 400, 'invalid_request');
    expectEnvelope(await setPlan(tok.admin, 'picky', { plan: 'enterprise', tenant: 'picky' }), 400, 'invalid_request');
    expectEnvelope(await setPlan(tok.admin, 'picky', ['enterprise']), 400, 'invalid_request');
    expectEnvelope(await call(t.url, 'PUT', '/admin/tenants/picky/plan', { token: tok.admin, rawBody: 'plan=enterprise', headers: { 'content-type': 'application/json' } }), 400, 'invalid_request');
    expect(t.gw.deps.tenants.get('picky')?.plan).toBe('professional');
    expect(await planEntries(tok.viewer)).toEqual([]);
  });

  it("404 when the caller's own tenant is not there (a token whose tenant record is gone)", async () => {
    const orphan = (await t.gw.deps.tokens.create({ tenantId: 'vanished', role: 'admin', name: 'orphan', expiresInDays: 1 })).token;
    expect(expectEnvelope(await setPlan(orphan, 'vanished', { plan: 'enterprise' }), 404, 'not_found').message).toBe('tenant not found');
    expect(t.gw.deps.tenants.get('vanished')).toBeUndefined();
  });
});
