import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

let t: TestGateway;
let a: Awaited<ReturnType<TestGateway['tenant']>>;
let b: Awaited<ReturnType<TestGateway['tenant']>>;

beforeAll(async () => {
  t = await startTestGateway();
  a = await t.tenant('tenant-a');
  b = await t.tenant('tenant-b');
});
afterAll(() => t.close());

const filter = (name: string) => ({ name, type: 'content_filter', risk: 60, rules: { patterns: ['(?i)secret plan'], action: 'DENY' } });

describe('policies API', () => {
  it('creates, reads, updates and deletes a policy, bumping the policy version each time', async () => {
    const created = await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: filter('no secret plans') });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^pol_/), name: 'no secret plans' });
    expect(Number.isNaN(Date.parse(created.body.created_at))).toBe(false);
    const v1 = created.headers['x-svc-policy'];
    expect(v1).toMatch(/^v\d+$/);
    const id = created.body.id;

    const list = await call(t.url, 'GET', '/v1/policies', { token: a.viewer });
    expect(list.body.data).toEqual([
      expect.objectContaining({ id, name: 'no secret plans', type: 'content_filter', risk: 60, enabled: true, created_at: created.body.created_at }),
    ]);
    expect(list.body.data[0].rules).toEqual({ patterns: ['(?i)secret plan'], action: 'DENY', target: 'input', case_insensitive: false });

    const put = await call(t.url, 'PUT', `/v1/policies/${id}`, { token: a.admin, body: { enabled: false, risk: 5 } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id, enabled: false, risk: 5, name: 'no secret plans' });
    expect(Number(put.headers['x-svc-policy']!.slice(1))).toBeGreaterThan(Number(v1!.slice(1)));
    // The list shows the active policies by default; the disabled one with enabled=false or enabled=all.
    expect((await call(t.url, 'GET', '/v1/policies', { token: a.viewer })).body).toMatchObject({ data: [], total: 0 });
    expect((await call(t.url, 'GET', '/v1/policies?enabled=false', { token: a.viewer })).body.data.map((p: { id: string }) => p.id)).toEqual([id]);
    expect((await call(t.url, 'GET', '/v1/policies?enabled=all', { token: a.viewer })).body.total).toBe(1);
    expectEnvelope(await call(t.url, 'GET', '/v1/policies?enabled=maybe', { token: a.viewer }), 400, 'invalid_request');

    const del = await call(t.url, 'DELETE', `/v1/policies/${id}`, { token: a.admin });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expectEnvelope(await call(t.url, 'DELETE', `/v1/policies/${id}`, { token: a.admin }), 404, 'not_found');
    expectEnvelope(await call(t.url, 'PUT', `/v1/policies/${id}`, { token: a.admin, body: { risk: 1 } }), 404, 'not_found');
    expectEnvelope(await call(t.url, 'GET', `/v1/policies/${id}`, { token: a.admin }), 404, 'not_found');
  });

  it('validates bodies: missing fields, wrong types, bounds, unknown types and fields → 400', async () => {
    const bad: unknown[] = [
      {},
      { name: 'x', type: 'content_filter', risk: 10 },
      { name: 'x', type: 'content_filter', risk: '10', rules: { patterns: ['a'] } },
      { name: 'x', type: 'content_filter', risk: 101, rules: { patterns: ['a'] } },
      { name: 'x', type: 'content_filter', risk: -1, rules: { patterns: ['a'] } },
      { name: 'x', type: 'telepathy', risk: 10, rules: {} },
      { name: '', type: 'content_filter', risk: 10, rules: { patterns: ['a'] } },
      { name: 'x', type: 'content_filter', risk: 10, rules: { patterns: [] } },
      { name: 'x', type: 'content_filter', risk: 10, rules: { patterns: ['a'], action: 'EXPLODE' } },
      { name: 'x', type: 'content_filter', risk: 10, rules: { patterns: ['a'], colour: 'red' } },
      { name: 'x', type: 'content_filter', risk: 10, rules: { patterns: ['a'] }, owner: 'me' },
      { name: 'x', type: 'rate_limit', risk: 10, rules: { limit: 0, window_s: 60 } },
      { name: 'x', type: 'rate_limit', risk: 10, rules: { limit: 1.5, window_s: 60 } },
      { name: 'x', type: 'pii_redaction', risk: 10, rules: { entities: ['SHOE_SIZE'] } },
      { name: 'x', type: 'pii_redaction', risk: 10, rules: { action: 'ESCALATE' } },
      { name: 'x', type: 'budget', risk: 10, rules: { max_cost_brl: 0 } },
      { name: 'x', type: 'entropy_check', risk: 10, rules: { threshold_bits: 9 } },
      [],
      'policy',
      null,
    ];
    for (const body of bad) {
      expectEnvelope(await call(t.url, 'POST', '/v1/policies', { token: a.admin, body }), 400, 'invalid_request');
    }
    expect((await call(t.url, 'GET', '/v1/policies', { token: a.admin })).body.total).toBe(0);
  });

  it('refuses content-filter patterns RE2 cannot run (backreferences, lookaround) with 400 naming the pattern', async () => {
    for (const pattern of ['(a)\\1', '(?=password)', '(?<!x)y', '[unclosed']) {
      const r = await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: { ...filter('x'), rules: { patterns: ['ok', pattern], action: 'DENY' } } });
      const e = expectEnvelope(r, 400, 'invalid_request');
      expect(e.message).toContain('RE2');
    }
  });

  it('refuses a PUT that changes the type or has wrong types, and changes nothing', async () => {
    const { body } = await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: filter('keep') });
    expectEnvelope(await call(t.url, 'PUT', `/v1/policies/${body.id}`, { token: a.admin, body: { type: 'rate_limit' } }), 400, 'invalid_request');
    expectEnvelope(await call(t.url, 'PUT', `/v1/policies/${body.id}`, { token: a.admin, body: { enabled: 'yes' } }), 400, 'invalid_request');
    expectEnvelope(await call(t.url, 'PUT', `/v1/policies/${body.id}`, { token: a.admin, body: { rules: { patterns: ['(?=x)'] } } }), 400, 'invalid_request');
    expectEnvelope(await call(t.url, 'PUT', `/v1/policies/${body.id}`, { token: a.admin, body: {} }), 400, 'invalid_request');
    const after = await call(t.url, 'GET', `/v1/policies/${body.id}`, { token: a.admin });
    expect(after.body).toMatchObject({ name: 'keep', enabled: true, risk: 60, type: 'content_filter' });
    await call(t.url, 'DELETE', `/v1/policies/${body.id}`, { token: a.admin });
  });

  it('accepts unicode names and patterns', async () => {
    const r = await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: { ...filter('política — ñ 🚫'), rules: { patterns: ['contraseña', '密码'], action: 'DENY' } } });
    expect(r.status).toBe(200);
    expect(r.body.name).toBe('política — ñ 🚫');
    await call(t.url, 'DELETE', `/v1/policies/${r.body.id}`, { token: a.admin });
  });
});

describe('pagination', () => {
  it('walks every page with limit and cursor; the last page has cursor null; total is the whole count', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await call(t.url, 'POST', '/v1/policies', { token: b.admin, body: filter(`p${i}`) })).body.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor ? `?limit=3&cursor=${encodeURIComponent(cursor)}` : '?limit=3';
      const r = await call(t.url, 'GET', `/v1/policies${q}`, { token: b.viewer });
      expect(r.status).toBe(200);
      expect(r.body.total).toBe(7);
      seen.push(...r.body.data.map((p: { id: string }) => p.id));
      cursor = r.body.cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);
    for (const q of ['?limit=0', '?limit=501', '?limit=abc', '?limit=-1']) {
      expectEnvelope(await call(t.url, 'GET', `/v1/policies${q}`, { token: b.viewer }), 400, 'invalid_request');
    }
  });
});

describe('tenant isolation', () => {
  it('never shows or touches another tenant\'s policies', async () => {
    const mine = await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: filter('a-only') });
    const listB = await call(t.url, 'GET', '/v1/policies', { token: b.admin });
    expect(listB.body.data.map((p: { id: string }) => p.id)).not.toContain(mine.body.id);
    expectEnvelope(await call(t.url, 'GET', `/v1/policies/${mine.body.id}`, { token: b.admin }), 404, 'not_found');
    expectEnvelope(await call(t.url, 'PUT', `/v1/policies/${mine.body.id}`, { token: b.admin, body: { enabled: false } }), 404, 'not_found');
    expectEnvelope(await call(t.url, 'DELETE', `/v1/policies/${mine.body.id}`, { token: b.admin }), 404, 'not_found');
    expect((await call(t.url, 'GET', `/v1/policies/${mine.body.id}`, { token: a.admin })).body.enabled).toBe(true);
  });

  it('answers 403 when a query or body names another tenant', async () => {
    expectEnvelope(await call(t.url, 'GET', '/v1/policies?tenantId=tenant-a', { token: b.viewer }), 403, 'permission_denied');
    expectEnvelope(await call(t.url, 'POST', '/v1/policies', { token: b.admin, body: { ...filter('x'), tenant_id: 'tenant-a' } }), 403, 'permission_denied');
    expectEnvelope(await call(t.url, 'POST', '/v1/policies/apply-pack', { token: b.admin, body: { pack: 'FREE_TIER_POLICIES', tenant_id: 'tenant-a' } }), 403, 'permission_denied');
    expect((await call(t.url, 'GET', '/v1/policies?tenantId=tenant-b', { token: b.viewer })).status).toBe(200);
  });
});

describe('packs', () => {
  it('applies FREE_TIER_POLICIES idempotently, and RUNTIME_PAID_POLICIES adds the other three', async () => {
    const c = await t.tenant('packs');
    const first = await call(t.url, 'POST', '/v1/policies/apply-pack', { token: c.admin, body: { pack: 'FREE_TIER_POLICIES' } });
    expect(first.status).toBe(200);
    expect(first.body.created.map((p: { type: string }) => p.type).sort()).toEqual(['content_filter', 'entropy_check', 'rate_limit']);
    const again = await call(t.url, 'POST', '/v1/policies/apply-pack', { token: c.admin, body: { pack: 'FREE_TIER_POLICIES' } });
    expect(again.body.created).toEqual([]);
    expect(again.body.existing).toHaveLength(3);
    expect(again.body.policy_version).toBe(first.body.policy_version);
    const paid = await call(t.url, 'POST', '/v1/policies/apply-pack', { token: c.admin, body: { pack: 'RUNTIME_PAID_POLICIES' } });
    expect(paid.body.created.map((p: { type: string }) => p.type).sort()).toEqual(['bond_enforcement', 'hallucination_shield', 'pii_redaction']);
    const paidAgain = await call(t.url, 'POST', '/v1/policies/apply-pack', { token: c.admin, body: { pack: 'RUNTIME_PAID_POLICIES' } });
    expect(paidAgain.body.created).toEqual([]);
    const list = await call(t.url, 'GET', '/v1/policies', { token: c.viewer });
    expect(list.body.total).toBe(6);
    for (const body of [{ pack: 'GOLD' }, {}, { pack: 1 }, { pack: 'FREE_TIER_POLICIES', extra: true }]) {
      expectEnvelope(await call(t.url, 'POST', '/v1/policies/apply-pack', { token: c.admin, body }), 400, 'invalid_request');
    }
  });
});
