import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

describe('plan rate limits', () => {
  it('community: a burst of 10, then 429 rate_limit_exceeded with an integer Retry-After', async () => {
    const tok = await t.tenant('small', 'community');
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await call(t.url, 'GET', '/v1/policies', { token: tok.viewer })).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const r = await call(t.url, 'GET', '/v1/policies', { token: tok.viewer });
    expectEnvelope(r, 429, 'rate_limit_exceeded');
    expect(r.headers['retry-after']).toMatch(/^\d+$/);
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The bucket is the tenant's: another token of the same tenant is limited too; another tenant is not.
    expectEnvelope(await call(t.url, 'POST', '/v1/decide', { token: tok.admin, body: { agent_id: 'a', action: { type: 'x' } } }), 429, 'rate_limit_exceeded');
    const other = await t.tenant('other-small', 'community');
    expect((await call(t.url, 'GET', '/v1/policies', { token: other.viewer })).status).toBe(200);
  });

  it('professional: a burst of 100', async () => {
    const tok = await t.tenant('pro', 'professional');
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 200 }, () => call(t.url, 'GET', '/admin/decisions?limit=1', { token: tok.viewer })));
    const elapsedMs = performance.now() - started;
    // The burst of 100, plus what the bucket earned back (600 a minute: one every 100 ms) while the calls were sent:
    // on a loaded machine sending them takes a while, and that refill is the plan working, not leaking.
    const ok = results.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThanOrEqual(100);
    expect(ok).toBeLessThanOrEqual(100 + Math.ceil(elapsedMs / 100));
    expect(results.filter((r) => r.status === 429)).toHaveLength(200 - ok);
    expect(200 - ok).toBeGreaterThan(0);
  });

  it('enterprise: unlimited', async () => {
    const tok = await t.tenant('big', 'enterprise');
    const results = await Promise.all(Array.from({ length: 300 }, () => call(t.url, 'GET', '/admin/decisions?limit=1', { token: tok.viewer })));
    expect(results.every((r) => r.status === 200)).toBe(true);
  });

  it('unauthenticated requests are refused before they count against anyone', async () => {
    const tok = await t.tenant('quiet', 'community');
    for (let i = 0; i < 20; i++) await call(t.url, 'GET', '/v1/policies', { token: 'adu_pat_wrong' });
    expect((await call(t.url, 'GET', '/v1/policies', { token: tok.viewer })).status).toBe(200);
  });
});
