import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectEnvelope, startTestGateway, type CallResult } from './helpers/start-test-gateway.js';
import { sidecarOnlyServer, startSidecar, TestControlPlane, type TestSidecar } from './helpers/fleet-control-plane.js';
import { poll } from '../../shared/test/helpers/poll.js';
import type { HttpServer } from '../src/http/server.js';
import { loadGatewayConfig } from '../src/index.js';

/*
 * A sidecar offered a bundle it must not take. The bundles come from a control plane that serves what the test sets:
 * first a real one (taken from a real control plane), then broken versions of it at later revisions.
 */
let cp: TestControlPlane;
let fake: HttpServer;
let fakeUrl: string;
let served: { revision: number; json: string };
/** The real bundle the broken ones are made from. */
let good: string;
let s: TestSidecar;
let operator: string;
let sidecarToken: string;

beforeAll(async () => {
  cp = await TestControlPlane.start();
  const tok = await cp.gw.tenant('fr-a');
  operator = tok.operator;
  await call(cp.gw.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'no secrets', type: 'content_filter', risk: 90, rules: { patterns: ['top secret'], action: 'DENY' } } });
  cp.bump();
  sidecarToken = (await cp.sidecarTokens.create('fr', ['fr-a'])).token;
  const real = await call(cp.url, 'GET', '/v1/fleet/bundle', { token: sidecarToken });
  served = { revision: real.body.revision, json: real.text };
  good = real.text;
  fake = sidecarOnlyServer('fake-control-plane', cp.sidecarTokens);
  fake.route('get', '/v1/fleet/bundle', { auth: 'public', body: 'none', headers: ['if-none-match'] }, async (ctx) => {
    if (ctx.header('if-none-match') === `"${served.revision}"`) {
      await new Promise((r) => setTimeout(r, 100));
      return { status: 304 };
    }
    return { status: 200, raw: served.json, contentType: 'application/json', headers: { etag: `"${served.revision}"` } };
  });
  fake.finish();
  fakeUrl = `http://127.0.0.1:${await fake.listen('127.0.0.1', 0)}`;
  s = await startSidecar(fakeUrl, sidecarToken);
  expect(await poll(async () => (await health()).bundle.revision === served.revision, { what: 'the sidecar to hold the served bundle', timeoutMs: 2000 })).toBe(true);
});
afterAll(async () => {
  await s.close();
  await fake.close(0);
  await cp.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the health body is read field by field
const health = async (): Promise<any> => (await call(s.url, 'GET', '/health')).body.fleet;
const verdict = async (text: string): Promise<string> => {
  const r: CallResult = await call(s.url, 'POST', '/v1/decide', { token: operator, body: { agent_id: 'a', action: { type: 'tool_call', payload: { text } } } });
  return r.body?.envelope?.execution_status ?? `status ${r.status}`;
};

/** Serves a changed copy of the real bundle at the next revision; the sidecar must refuse it. */
async function offerBroken(change: (b: { revision: number; tenants: { tenant: { policy_version: number }; tokens: { record: { tenant_id: string; revoked_at: string | null } }[]; policies: { rules: { patterns: string[] } }[] }[] }) => void): Promise<void> {
  const refusedBefore = (await health()).bundle.refused;
  const b = JSON.parse(good);
  b.revision = served.revision + 1;
  change(b);
  served = { revision: b.revision, json: JSON.stringify(b) };
  expect(await poll(async () => (await health()).bundle.refused > refusedBefore, { what: 'the sidecar to refuse the broken bundle', timeoutMs: 2000 })).toBe(true);
}

describe('a bundle the sidecar must refuse', () => {
  it('refuses whole a bundle whose policies do not compile (and revokes nothing it carried), keeping the previous one', async () => {
    const inForce = (await health()).bundle.revision;
    await offerBroken((b) => {
      const t = b.tenants[0]!;
      t.tenant.policy_version++;
      t.policies[0]!.rules.patterns = ['(unclosed'];
      // Part of the same bundle: must not take effect either.
      for (const tok of t.tokens) tok.record.revoked_at = new Date().toISOString();
    });
    const h = await health();
    expect(h.bundle.revision).toBe(inForce);
    expect(h.bundle.last_error).toMatch(/bundle refused/);
    expect(await verdict('this is top secret')).toBe('DENY');
    expect(await verdict('hello')).toBe('ALLOW');
  });

  it('refuses a malformed bundle and one that puts a token under another tenant', async () => {
    const inForce = (await health()).bundle.revision;
    await offerBroken((b) => {
      (b as { tenants: unknown }).tenants = 'nope';
    });
    await offerBroken((b) => {
      b.tenants[0]!.tokens[0]!.record.tenant_id = 'someone-else';
    });
    expect((await health()).bundle.revision).toBe(inForce);
    expect(await verdict('hello')).toBe('ALLOW');
  });

  it('refuses whole a bundle whose routes break the routes API’s rules (a model routed to a target it does not name)', async () => {
    const inForce = (await health()).bundle.revision;
    await offerBroken((b) => {
      const t = b.tenants[0] as unknown as Record<string, unknown>;
      t['routes'] = {
        version: 1,
        spec: { targets: { a: { provider: 'openai', base_url: 'https://api.openai.com/v1' } }, models: { 'gpt-4o': { strategy: 'fallback', targets: ['b'] } } },
        updated_at: new Date().toISOString(),
        updated_by: 'someone',
      };
    });
    const h = await health();
    expect(h.bundle.revision).toBe(inForce);
    expect(h.bundle.last_error).toMatch(/routes of tenant fr-a: models\.gpt-4o/);
    expect((await call(s.url, 'GET', '/v1/routes', { token: operator })).body).toMatchObject({ version: 0, routes: null });
  });

  it('takes the next good bundle after refusing bad ones', async () => {
    const real = await call(cp.url, 'GET', '/v1/fleet/bundle', { token: sidecarToken });
    const b = JSON.parse(real.text);
    b.revision = served.revision + 1;
    b.tenants[0].policies = [];
    b.tenants[0].tenant.policy_version += 10;
    served = { revision: b.revision, json: JSON.stringify(b) };
    expect(await poll(async () => (await health()).bundle.revision === served.revision, { what: 'the sidecar to hold the served bundle', timeoutMs: 2000 })).toBe(true);
    expect((await health()).bundle.last_error).toBeNull();
    expect(await verdict('this is top secret')).toBe('ALLOW');
  });
});

describe('the embedded default', () => {
  it('is no sidecar: it bootstraps, takes admin writes, and its /health is unchanged', async () => {
    const t = await startTestGateway();
    try {
      expect(t.gw.sidecar).toBeNull();
      expect(t.adminToken).toMatch(/^adu_pat_/);
      const h = await call(t.url, 'GET', '/health');
      expect(h.body).toEqual({ status: 'ok', service: 'aduana-gateway' });
      const r = await call(t.url, 'POST', '/v1/policies', { token: t.adminToken, body: { name: 'p', type: 'content_filter', risk: 1, rules: { patterns: ['x'] } } });
      expect(r.status).toBe(200);
      expect((await call(t.url, 'POST', '/v1/decide', { token: t.adminToken, body: { agent_id: 'a', action: { type: 'x' } } })).status).toBe(200);
      expectEnvelope(await call(t.url, 'GET', '/v1/fleet/bundle', { token: t.adminToken }), 404, 'not_found');
    } finally {
      await t.close();
    }
  });

  it('refuses CONTROL_PLANE_URL without SIDECAR_TOKEN with a configuration error naming SIDECAR_TOKEN', () => {
    expect(() => loadGatewayConfig({ CONTROL_PLANE_URL: 'http://127.0.0.1:1' })).toThrow(/SIDECAR_TOKEN/);
  });
});
