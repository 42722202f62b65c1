import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { startFakeIssuer, type FakeIssuer } from './helpers/fake-issuer.js';

const PASSWORD = 'a long enough password';

describe('GET /auth/idp: sign-ins started per client address', () => {
  let issuer: FakeIssuer;
  let t: TestGateway;
  /** A second client address: the gateway listens on 127.0.0.1, and on Linux all of 127/8 is loopback. */
  const otherAddress = new Agent({ localAddress: '127.0.0.2' });
  beforeAll(async () => {
    issuer = await startFakeIssuer();
    t = await startTestGateway({
      oidcIssuer: issuer.issuer,
      oidcClientId: 'aduana-console',
      oidcRedirectUri: 'http://127.0.0.1:1/auth/idp/callback',
      oidcAllowInsecureHttp: true,
      oidcStartsPerMinute: 3,
    });
  });
  afterAll(async () => {
    await t?.close();
    await issuer?.close();
    await otherAddress.close();
  });

  it('past the limit: 429 with Retry-After and no flow cookie; another address still starts its sign-in', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await call(t.authUrl, 'GET', '/auth/idp');
      expect(r.status, r.text).toBe(302);
      expect(r.headers['set-cookie']).toMatch(/^aduana_oidc_flow=/);
    }
    const refused = await call(t.authUrl, 'GET', '/auth/idp');
    expectEnvelope(refused, 429, 'rate_limit_exceeded');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['set-cookie']).toBeUndefined();
    const other = await call(t.authUrl, 'GET', '/auth/idp', { dispatcher: otherAddress });
    expect(other.status, other.text).toBe(302);
  });
});

describe('POST /console/ledger/verify: verifications per tenant', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ passwordScryptLogN: 12, consoleVerifiesPerHour: 2 });
  });
  afterAll(() => t?.close());

  /** A console session of a new user of `tenant`: its cookie and the CSRF token its forms carry. */
  async function consoleSession(tenant: string, admin: string, email: string, role: string): Promise<{ cookie: string; csrf: string }> {
    expect((await call(t.url, 'POST', '/admin/users', { token: admin, body: { email, name: email, role, password: PASSWORD } })).status).toBe(201);
    const login = await call(t.authUrl, 'POST', '/login', { body: { email, password: PASSWORD } });
    expect(login.status, login.text).toBe(200);
    const cookie = `aduana_session=${login.body.session_token}`;
    const page = await call(t.authUrl, 'GET', '/console/ledger', { headers: { cookie } });
    expect(page.status, `${tenant}: ${page.text.slice(0, 200)}`).toBe(200);
    return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] as string };
  }

  const verify = (s: { cookie: string; csrf: string }) =>
    call(t.authUrl, 'POST', '/console/ledger/verify', { rawBody: `csrf=${encodeURIComponent(s.csrf)}`, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: s.cookie } });

  it("past the limit a viewer's verification is 429 with Retry-After, for every session of the tenant; another tenant's still runs", async () => {
    const acme = await t.tenant('verify-acme');
    const other = await t.tenant('verify-other');
    const viewer = await consoleSession('verify-acme', acme.admin, 'viewer@verify-acme.example', 'viewer');
    const admin = await consoleSession('verify-acme', acme.admin, 'admin@verify-acme.example', 'admin');
    const outsider = await consoleSession('verify-other', other.admin, 'viewer@verify-other.example', 'viewer');
    for (let i = 0; i < 2; i++) expect((await verify(viewer)).status).toBe(200);
    const refused = await verify(viewer);
    expectEnvelope(refused, 429, 'rate_limit_exceeded');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expectEnvelope(await verify(admin), 429, 'rate_limit_exceeded');
    expect((await verify(outsider)).status).toBe(200);
  });
});
