import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viewDigest } from '../src/governance/admin-actions.js';
import type { Role } from '../src/identity/auth/principal.js';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { exampleRoutes, exampleRoutesWithoutCredentials, INVALID_ROUTES } from './helpers/example-routes.js';

/**
 * A tenant's routes over the API (docs/routing.md, "Routes"): read by every role, replaced or removed by an admin,
 * refused whole and unchanged when anything is wrong, versioned, chained in the tenant's ledger, one tenant's never
 * another's. The gateway's credential store knows no names yet: routes that name a credential are refused here, and
 * taken where the names resolve (route-validation.test.ts).
 */

let t: TestGateway;
let acme: Record<Role, string>;
let globex: Record<Role, string>;

beforeAll(async () => {
  t = await startTestGateway();
  acme = await t.tenant('routes-acme');
  globex = await t.tenant('routes-globex');
});
afterAll(async () => t?.close());

const NONE = { version: 0, routes: null, updated_at: null, updated_by: null };

function entries(tenant: string, eventType: 'routes.updated' | 'routes.deleted') {
  return t.gw.deps.ledger.list(tenant, { limit: 100, order: 'asc', eventType, cursor: null }).events;
}

describe('routes: read, replace, remove', () => {
  it('a tenant without routes: 200, version 0, routes null, for every role', async () => {
    for (const role of ['admin', 'operator', 'viewer'] as const) {
      const r = await call(t.url, 'GET', '/v1/routes', { token: acme[role] });
      expect(r.status, role).toBe(200);
      expect(r.body).toEqual(NONE);
    }
    expectEnvelope(await call(t.url, 'GET', '/v1/routes'), 401, 'authentication_error');
  });

  it('routes naming credentials the tenant does not have are refused, naming the first', async () => {
    const r = await call(t.url, 'PUT', '/v1/routes', { token: acme.admin, body: exampleRoutes() });
    expect(expectEnvelope(r, 400, 'invalid_request').message).toBe('targets.openai-main.credential: unknown credential "openai-prod": this tenant has no provider credential of that name');
    expect((await call(t.url, 'GET', '/v1/routes', { token: acme.admin })).body).toEqual(NONE);
    expect(entries('routes-acme', 'routes.updated')).toEqual([]);
  });

  it('PUT takes the routes whole: version 1, GET shows them; the same routes again change nothing; a change is version 2', async () => {
    const told: string[] = [];
    t.gw.deps.routes.onChange = (tenant) => told.push(tenant);
    const before = Date.now();
    const put = await call(t.url, 'PUT', '/v1/routes', { token: acme.admin, body: exampleRoutesWithoutCredentials() });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ version: 1, routes: exampleRoutesWithoutCredentials() });
    expect(put.body.updated_by).toMatch(/^tok_/);
    expect(Date.parse(put.body.updated_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Object.keys(put.body).sort()).toEqual(['routes', 'updated_at', 'updated_by', 'version']);
    for (const role of ['admin', 'operator', 'viewer'] as const) expect((await call(t.url, 'GET', '/v1/routes', { token: acme[role] })).body).toEqual(put.body);

    const again = await call(t.url, 'PUT', '/v1/routes', { token: acme.admin, body: exampleRoutesWithoutCredentials() });
    expect(again.body).toEqual(put.body);

    const changed = exampleRoutesWithoutCredentials();
    changed.retry.attempts = 3;
    const second = await call(t.url, 'PUT', '/v1/routes', { token: acme.admin, body: changed });
    expect(second.body).toMatchObject({ version: 2, routes: changed });
    expect(told).toEqual(['routes-acme', 'routes-acme']);
    t.gw.deps.routes.onChange = null;

    // Chained: each change once, its `before` the previous one's `after`, digests of {version, routes}.
    const chained = entries('routes-acme', 'routes.updated');
    expect(chained.map((e) => e.payload)).toEqual([
      { action: 'routes.updated', actor: { by: put.body.updated_by, user: null }, target: 'routes', before: null, after: viewDigest({ version: 1, routes: exampleRoutesWithoutCredentials() }) },
      { action: 'routes.updated', actor: { by: put.body.updated_by, user: null }, target: 'routes', before: viewDigest({ version: 1, routes: exampleRoutesWithoutCredentials() }), after: viewDigest({ version: 2, routes: changed }) },
    ]);
    for (const e of chained) {
      expect(e.decision).toBeNull();
      expect(e.metadata['trace_id']).toMatch(/\S/);
    }
  });

  it('every invalid case is a 400 naming its field, and nothing changes', async () => {
    const current = (await call(t.url, 'GET', '/v1/routes', { token: acme.admin })).body;
    expect(current.version).toBe(2);
    for (const c of INVALID_ROUTES) {
      const spec = exampleRoutesWithoutCredentials();
      c.change(spec);
      const r = await call(t.url, 'PUT', '/v1/routes', { token: acme.admin, body: spec });
      const message = expectEnvelope(r, 400, 'invalid_request').message;
      expect(message, c.what).toMatch(c.path === '' ? /^[a-z]/ : new RegExp(`^${c.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
      expect(message, c.what).toMatch(c.message);
    }
    expect((await call(t.url, 'GET', '/v1/routes', { token: acme.admin })).body).toEqual(current);
    expect(entries('routes-acme', 'routes.updated')).toHaveLength(2);
  });

  it('a body that is not routes: 400; past the API body limit: 413; nothing changes', async () => {
    const current = (await call(t.url, 'GET', '/v1/routes', { token: acme.admin })).body;
    expectEnvelope(await call(t.url, 'PUT', '/v1/routes', { token: acme.admin, rawBody: 'targets: {}', headers: { 'content-type': 'application/json' } }), 400, 'invalid_request');
    expect(expectEnvelope(await call(t.url, 'PUT', '/v1/routes', { token: acme.admin, body: {} }), 400, 'invalid_request').message).toBe('missing required field "targets"');
    expect(expectEnvelope(await call(t.url, 'PUT', '/v1/routes', { token: acme.admin, body: { targets: {} } }), 400, 'invalid_request').message).toMatch(/^targets: at least one target; to remove the tenant's routes, DELETE \/v1\/routes/);
    expect(expectEnvelope(await call(t.url, 'PUT', '/v1/routes', { token: acme.admin, body: [] }), 400, 'invalid_request').message).toBe('must be object');
    // A tenant_id in the body is no field of routes; in the query it must be the caller's.
    expect(expectEnvelope(await call(t.url, 'PUT', '/v1/routes', { token: acme.admin, body: { ...exampleRoutesWithoutCredentials(), tenant_id: 'routes-acme' } }), 400, 'invalid_request').message).toBe('unknown field "tenant_id"');
    expectEnvelope(await call(t.url, 'PUT', '/v1/routes?tenant_id=routes-globex', { token: acme.admin, body: exampleRoutesWithoutCredentials() }), 403, 'permission_denied');
    expectEnvelope(await call(t.url, 'GET', '/v1/routes?tenant_id=routes-globex', { token: acme.admin }), 403, 'permission_denied');
    expect((await call(t.url, 'GET', '/v1/routes?tenant_id=routes-acme', { token: acme.admin })).status).toBe(200);
    const huge = { targets: { a: { provider: 'openai', base_url: `https://x.example/${'a'.repeat(1024 * 1024)}` } } };
    expectEnvelope(await call(t.url, 'PUT', '/v1/routes', { token: acme.admin, body: huge }), 413, 'payload_too_large');
    expect((await call(t.url, 'GET', '/v1/routes', { token: acme.admin })).body).toEqual(current);
  });

  it('only an admin changes routes: an operator and a viewer are 403, nothing changes', async () => {
    const current = (await call(t.url, 'GET', '/v1/routes', { token: acme.admin })).body;
    for (const role of ['operator', 'viewer'] as const) {
      expectEnvelope(await call(t.url, 'PUT', '/v1/routes', { token: acme[role], body: exampleRoutesWithoutCredentials() }), 403, 'permission_denied');
      expectEnvelope(await call(t.url, 'DELETE', '/v1/routes', { token: acme[role] }), 403, 'permission_denied');
    }
    expect((await call(t.url, 'GET', '/v1/routes', { token: acme.admin })).body).toEqual(current);
  });

  it("tenants apart: one tenant's routes are never another's", async () => {
    const acmeRoutes = (await call(t.url, 'GET', '/v1/routes', { token: acme.admin })).body;
    expect((await call(t.url, 'GET', '/v1/routes', { token: globex.viewer })).body).toEqual(NONE);
    const theirs = { targets: { claude: { provider: 'anthropic', base_url: 'https://api.anthropic.com' } }, models: { sonnet: { strategy: 'fallback', targets: ['claude'] } } };
    const put = await call(t.url, 'PUT', '/v1/routes', { token: globex.admin, body: theirs });
    expect(put.body).toMatchObject({ version: 1, routes: theirs });
    expect((await call(t.url, 'GET', '/v1/routes', { token: acme.viewer })).body).toEqual(acmeRoutes);
    expect((await call(t.url, 'GET', '/v1/routes', { token: globex.viewer })).body).toEqual(put.body);
    expect(entries('routes-globex', 'routes.updated')).toHaveLength(1);
    expect(entries('routes-acme', 'routes.updated')).toHaveLength(2);
    // Removing theirs leaves ours.
    expect((await call(t.url, 'DELETE', '/v1/routes', { token: globex.admin })).status).toBe(200);
    expect((await call(t.url, 'GET', '/v1/routes', { token: acme.viewer })).body).toEqual(acmeRoutes);
  });

  it('DELETE: back to the default route, version bumped, chained; again: 404; the next routes take the next version', async () => {
    const current = (await call(t.url, 'GET', '/v1/routes', { token: acme.admin })).body;
    const del = await call(t.url, 'DELETE', '/v1/routes', { token: acme.admin });
    expect(del.status, del.text).toBe(200);
    expect(del.body).toMatchObject({ version: current.version + 1, routes: null, updated_by: current.updated_by });
    expect((await call(t.url, 'GET', '/v1/routes', { token: acme.viewer })).body).toEqual(del.body);
    expect(t.gw.deps.routes.get('routes-acme')).toBeNull();
    const [deleted] = entries('routes-acme', 'routes.deleted');
    expect(deleted?.payload).toEqual({ action: 'routes.deleted', actor: { by: current.updated_by, user: null }, target: 'routes', before: viewDigest({ version: current.version, routes: current.routes }), after: null });

    expect(expectEnvelope(await call(t.url, 'DELETE', '/v1/routes', { token: acme.admin }), 404, 'not_found').message).toBe('this tenant has no routes: its calls take the default route');
    expect(entries('routes-acme', 'routes.deleted')).toHaveLength(1);

    const back = await call(t.url, 'PUT', '/v1/routes', { token: acme.admin, body: exampleRoutesWithoutCredentials() });
    expect(back.body.version).toBe(current.version + 2);
    expect(entries('routes-acme', 'routes.updated').at(-1)?.payload['before']).toBeNull();
  });
});
