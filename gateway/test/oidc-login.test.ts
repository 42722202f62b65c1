import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { CookieClient, freePort } from './helpers/cookie-client.js';
import { startTestIdentityProvider, type TestIdentityProvider } from './helpers/test-identity-provider.js';
import { startFakeIssuer, type FakeIssuer } from './helpers/fake-issuer.js';

function sessionCount(t: TestGateway): number {
  return [...t.gw.deps.store.sessions.getKeys()].length;
}

function userCount(t: TestGateway): number {
  return [...t.gw.deps.store.users.getKeys({ start: ['id'], end: ['id', '\uffff'] })].length;
}

/** Starts a gateway whose identity provider is `issuer`, on a known auth port (the callback URL must be registered). */
async function gatewayFor(issuer: string, port: number, extra: Record<string, string | number | boolean> = {}): Promise<TestGateway> {
  return startTestGateway({
    authPort: port,
    oidcIssuer: issuer,
    oidcClientId: 'aduana-console',
    oidcClientSecret: 'test-secret-0123456789abcdef0123456789',
    oidcRedirectUri: `http://127.0.0.1:${port}/auth/idp/callback`,
    oidcAllowInsecureHttp: true,
    passwordScryptLogN: 12,
    ...extra,
  });
}

describe('sign-in with a real OpenID Provider (authorization code, PKCE, state, nonce)', () => {
  let op: TestIdentityProvider;
  let t: TestGateway;
  let callback: string;
  beforeAll(async () => {
    const port = await freePort();
    callback = `http://127.0.0.1:${port}/auth/idp/callback`;
    op = await startTestIdentityProvider(callback);
    t = await gatewayFor(op.issuer, port);
  });
  afterAll(async () => {
    await t.close();
    await op.close();
  });

  /** Walks /auth/idp through the provider's login and consent up to the callback URL (not yet visited). */
  async function toCallback(browser: CookieClient): Promise<string> {
    const start = await browser.get(`${t.authUrl}/auth/idp`);
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.location as string);
    expect(authorize.origin).toBe(op.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(String(start.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Lax/);
    const { stopped } = await browser.follow(authorize.href, callback);
    expect(stopped).toBeTruthy();
    return stopped as string;
  }

  it('walks the whole flow: the first login provisions a viewer linked by sub, whose session works on /me and the API', async () => {
    op.account = { sub: 'sub-ida', email: 'Ida@IdP.example', email_verified: true, name: 'Ida Provider' };
    const browser = new CookieClient();
    const back = await toCallback(browser);
    const done = await browser.get(back);
    expect(done.status, done.text).toBe(200);
    expect(String(done.headers['set-cookie'])).toMatch(/^aduana_session=adu_ses_[0-9A-Za-z]{36}; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(done.headers['content-security-policy']).toContain("script-src 'self'");
    const session = browser.cookies(t.authUrl).get('aduana_session') as string;
    const me = await call(t.authUrl, 'GET', '/me', { token: session });
    expect(me.body).toMatchObject({ email: 'ida@idp.example', name: 'Ida Provider', role: 'viewer', provider: 'oidc', tenant_id: 'default', auth: { kind: 'session' } });
    expect((await call(t.url, 'GET', '/admin/decisions', { token: session })).status).toBe(200);

    // The same subject with a changed e-mail is the same account: linked by sub, not by e-mail.
    op.account = { ...op.account, email: 'ida.new@idp.example' };
    const again = new CookieClient();
    const second = await again.get(await toCallback(again));
    expect(second.status).toBe(200);
    const me2 = await call(t.authUrl, 'GET', '/me', { token: again.cookies(t.authUrl).get('aduana_session') as string });
    expect(me2.body.id).toBe(me.body.id);
  });

  it('refuses a wrong state, a replayed code, a callback from another browser: 401, no session, no user', async () => {
    op.account = { sub: 'sub-eve', email: 'eve@idp.example', email_verified: true, name: 'Eve' };
    const sessions = sessionCount(t);
    const users = userCount(t);

    const browser = new CookieClient();
    const back = new URL(await toCallback(browser));
    const tampered = new URL(back);
    tampered.searchParams.set('state', 'not-the-state');
    expectEnvelope(await call(t.authUrl, 'GET', `${tampered.pathname}${tampered.search}`, { headers: { cookie: `aduana_oidc_flow=${browser.cookies(t.authUrl).get('aduana_oidc_flow')}` } }), 401, 'authentication_error');

    // Another browser (no flow cookie) cannot use a good callback URL.
    const other = new CookieClient();
    const b2 = new CookieClient();
    const back2 = await toCallback(b2);
    expectEnvelope(await call(t.authUrl, 'GET', back2.slice(t.authUrl.length)), 401, 'authentication_error');
    expect((await other.get(back2)).status).toBe(401);

    // A good callback succeeds once; its replay is refused.
    const b3 = new CookieClient();
    const back3 = await toCallback(b3);
    const flowCookie = b3.cookies(t.authUrl).get('aduana_oidc_flow') as string;
    expect((await b3.get(back3)).status).toBe(200);
    expect(sessionCount(t)).toBe(sessions + 1);
    expectEnvelope(await call(t.authUrl, 'GET', back3.slice(t.authUrl.length), { headers: { cookie: `aduana_oidc_flow=${flowCookie}` } }), 401, 'authentication_error');
    expect(sessionCount(t)).toBe(sessions + 1);
    expect(userCount(t)).toBe(users + 1);
  });

  it('never takes over an existing account by e-mail, and refuses an unverified e-mail: 403, nothing written', async () => {
    expect((await call(t.url, 'POST', '/admin/users', { token: t.adminToken, body: { email: 'owner@idp.example', name: 'Owner', role: 'admin', password: 'a long enough password' } })).status).toBe(201);
    const sessions = sessionCount(t);
    const users = userCount(t);
    for (const account of [
      { sub: 'sub-mallory', email: 'owner@idp.example', email_verified: true, name: 'Mallory' },
      { sub: 'sub-unverified', email: 'new@idp.example', email_verified: false, name: 'Unverified' },
    ]) {
      op.account = account;
      const browser = new CookieClient();
      const r = await browser.get(await toCallback(browser));
      expect(r.status).toBe(403);
      expect(JSON.parse(r.text).error.type).toBe('permission_denied');
    }
    expect(sessionCount(t)).toBe(sessions);
    expect(userCount(t)).toBe(users);
  });
});

describe('OIDC_ALLOWED_DOMAINS and a provider that is off', () => {
  it('provisions only the listed domains', async () => {
    const port = await freePort();
    const op = await startTestIdentityProvider(`http://127.0.0.1:${port}/auth/idp/callback`);
    const t = await gatewayFor(op.issuer, port, { oidcAllowedDomains: 'corp.example, Other.example' });
    try {
      const callback = `${t.authUrl}/auth/idp/callback`;
      op.account = { sub: 's1', email: 'x@idp.example', email_verified: true, name: 'X' };
      const b1 = new CookieClient();
      const r1 = await b1.get((await b1.follow(`${t.authUrl}/auth/idp`, callback)).stopped as string);
      expect(r1.status).toBe(403);
      op.account = { sub: 's2', email: 'y@other.example', email_verified: true, name: 'Y' };
      const b2 = new CookieClient();
      const r2 = await b2.get((await b2.follow(`${t.authUrl}/auth/idp`, callback)).stopped as string);
      expect(r2.status, r2.text).toBe(200);
    } finally {
      await t.close();
      await op.close();
    }
  });

  it('answers 404 when no issuer is configured', async () => {
    const t = await startTestGateway();
    try {
      expectEnvelope(await call(t.authUrl, 'GET', '/auth/idp'), 404, 'not_found');
      expectEnvelope(await call(t.authUrl, 'GET', '/auth/idp/callback?code=x&state=y'), 404, 'not_found');
    } finally {
      await t.close();
    }
  });
});

describe('ID tokens the library must refuse (a hostile provider)', () => {
  let fake: FakeIssuer;
  let t: TestGateway;
  beforeAll(async () => {
    fake = await startFakeIssuer();
    // Any free port will do here (nothing registers the callback), so a port taken meanwhile is simply tried again.
    for (let attempt = 0; ; attempt++) {
      try {
        t = await gatewayFor(fake.issuer, await freePort());
        break;
      } catch (err) {
        if (attempt === 3) throw err;
      }
    }
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  /** Starts a flow, answers the token request with an ID token from `claims(nonce)`, and calls the callback. */
  async function signIn(claims: (nonce: string) => Record<string, unknown>, key: 'published' | 'foreign' = 'published') {
    const browser = new CookieClient();
    const start = await browser.get(`${t.authUrl}/auth/idp`);
    const authorize = new URL(start.headers.location as string);
    const state = authorize.searchParams.get('state') as string;
    fake.next = { claims: claims(authorize.searchParams.get('nonce') as string), key };
    return browser.get(`${t.authUrl}/auth/idp/callback?code=any-code&state=${state}&iss=${encodeURIComponent(fake.issuer)}`);
  }

  const now = () => Math.floor(Date.now() / 1000);
  const good = (nonce: string) => ({ iss: fake.issuer, aud: 'aduana-console', sub: 'fake-sub', nonce, iat: now(), exp: now() + 300, email: 'fake@fake.example', email_verified: true, name: 'Fake' });

  it('an expired token, a token signed with another key, a foreign audience, a wrong nonce, another issuer: 401, no session', async () => {
    const before = sessionCount(t);
    // One at a time: the fake issuer answers every token request with the one `next` answer, so flows run together
    // would each be judged on another's token.
    const cases: [string, () => ReturnType<typeof signIn>][] = [
      ['expired', () => signIn((n) => ({ ...good(n), iat: now() - 7200, exp: now() - 3600 }))],
      ['wrongly signed', () => signIn(good, 'foreign')],
      ['foreign audience', () => signIn((n) => ({ ...good(n), aud: 'someone-else' }))],
      ['wrong nonce', () => signIn((n) => ({ ...good(n), nonce: `${n}x` }))],
      ['another issuer', () => signIn((n) => ({ ...good(n), iss: 'http://127.0.0.1:1' }))],
    ];
    for (const [name, run] of cases) {
      const r = await run();
      expect(r.status, name).toBe(401);
      expect(JSON.parse(r.text).error.type, name).toBe('authentication_error');
    }
    expect(sessionCount(t)).toBe(before);
    // The same provider with a good token does sign in: the refusals above are the defects', not the setup's.
    const ok = await signIn(good);
    expect(ok.status, ok.text).toBe(200);
    expect(sessionCount(t)).toBe(before + 1);
  });
});
