import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken, hashToken } from '@aduana/shared';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

const PASSWORD = 'correct horse battery staple';
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ passwordScryptLogN: 12, loginFailuresPerAccount: 50, loginFailuresPerAddress: 500 });
});
afterAll(() => t.close());

async function createUser(admin: string, email: string, role: string, password = PASSWORD) {
  const r = await call(t.url, 'POST', '/admin/users', { token: admin, body: { email, name: `User ${email}`, role, password } });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string; email: string };
}

async function login(email: string, password = PASSWORD) {
  return call(t.authUrl, 'POST', '/login', { body: { email, password } });
}

describe('users and sessions', () => {
  it('an admin creates a user; the user logs in, reads /me, is accepted by the governance API with its role, and logs out', async () => {
    const acme = await t.tenant('ses-acme');
    const u = await createUser(acme.admin, 'ana@acme.example', 'viewer');
    expect(u).not.toHaveProperty('password');
    const listed = await call(t.url, 'GET', '/admin/users', { token: acme.admin });
    expect(listed.body.data.map((x: { email: string }) => x.email)).toEqual(['ana@acme.example']);
    expect(listed.text).not.toContain('scrypt');

    const r = await login('Ana@Acme.example');
    expect(r.status, r.text).toBe(200);
    expect(r.body.session_token).toMatch(/^adu_ses_[0-9A-Za-z]{36}$/);
    const ttl = Date.parse(r.body.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(11.9 * 3_600_000);
    expect(ttl).toBeLessThanOrEqual(12 * 3_600_000);
    const session = r.body.session_token as string;
    // Stored hashed: the token itself is nowhere in the store.
    expect(t.gw.deps.store.sessions.get(hashToken(session))).toBeTruthy();

    const me = await call(t.authUrl, 'GET', '/me', { token: session });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: u.id, name: 'User ana@acme.example', avatar: '', email: 'ana@acme.example', role: 'viewer', tenant_id: 'ses-acme', provider: 'password', scopes: ['runtime:read'], auth: { kind: 'session' } });

    // The governance API takes the session with a viewer's scopes.
    expect((await call(t.url, 'GET', '/admin/decisions', { token: session })).status).toBe(200);
    expectEnvelope(await call(t.url, 'POST', '/v1/decide', { token: session, body: { agent_id: 'a', action: { type: 'x' } } }), 403, 'permission_denied');

    const verify = await call(t.authUrl, 'GET', '/verify', { token: session });
    expect(verify.body).toMatchObject({ active: true, type: 'session', email: 'ana@acme.example', userId: u.id, role: 'viewer' });

    expect((await call(t.authUrl, 'POST', '/logout', { token: session })).status).toBe(204);
    expectEnvelope(await call(t.authUrl, 'GET', '/me', { token: session }), 401, 'authentication_error');
    expect((await call(t.authUrl, 'GET', '/verify', { token: session })).body).toEqual({ active: false });
    // A PAT does not log out.
    expectEnvelope(await call(t.authUrl, 'POST', '/logout', { token: acme.admin }), 401, 'authentication_error');
  });

  it("POST /token takes an admin's session; /verify gives the minted token's real e-mail; a viewer's session may not mint", async () => {
    const acme = await t.tenant('ses-mint');
    await createUser(acme.admin, 'boss@mint.example', 'admin');
    await createUser(acme.admin, 'peek@mint.example', 'viewer');
    const boss = (await login('boss@mint.example')).body.session_token as string;
    const minted = await call(t.authUrl, 'POST', '/token', { token: boss, body: { name: 'ci', role: 'operator', expires_in_days: 7 } });
    expect(minted.status, minted.text).toBe(200);
    const v = await call(t.authUrl, 'GET', '/verify', { token: minted.body.token });
    expect(v.body).toMatchObject({ active: true, type: 'pat', email: 'boss@mint.example', role: 'operator', tenantId: 'ses-mint' });
    // The bootstrap token belongs to no user: its e-mail is empty, as before.
    expect((await call(t.authUrl, 'GET', '/verify', { token: t.adminToken })).body.email).toBe('');
    const peek = (await login('peek@mint.example')).body.session_token as string;
    expectEnvelope(await call(t.authUrl, 'POST', '/token', { token: peek, body: { name: 'x', role: 'viewer' } }), 403, 'permission_denied');
  });

  it('a disabled user cannot log in (same 401 as a wrong password) and its sessions and tokens stop at once', async () => {
    const acme = await t.tenant('ses-off');
    const u = await createUser(acme.admin, 'gone@off.example', 'admin');
    const session = (await login('gone@off.example')).body.session_token as string;
    const pat = (await call(t.authUrl, 'POST', '/token', { token: session, body: { name: 'mine', role: 'viewer' } })).body.token as string;
    const off = await call(t.url, 'POST', `/admin/users/${u.id}/disable`, { token: acme.admin });
    expect(off.body).toMatchObject({ id: u.id, disabled: true });
    expectEnvelope(await call(t.authUrl, 'GET', '/me', { token: session }), 401, 'authentication_error');
    expectEnvelope(await call(t.url, 'GET', '/v1/policies', { token: pat }), 401, 'authentication_error');
    const again = await login('gone@off.example');
    expect(expectEnvelope(again, 401, 'authentication_error').message).toBe('invalid email or password');
    // Another tenant's admin cannot disable (or see) this tenant's users.
    const other = await t.tenant('ses-off-other');
    expectEnvelope(await call(t.url, 'POST', `/admin/users/${u.id}/disable`, { token: other.admin }), 404, 'not_found');
  });

  it("an admin cannot disable their own account with a token they minted (409), and stays active", async () => {
    const acme = await t.tenant('ses-self');
    const u = await createUser(acme.admin, 'self@self.example', 'admin');
    const session = (await login('self@self.example')).body.session_token as string;
    const pat = (await call(t.authUrl, 'POST', '/token', { token: session, body: { name: 'mine', role: 'admin' } })).body.token as string;
    const refused = expectEnvelope(await call(t.url, 'POST', `/admin/users/${u.id}/disable`, { token: pat }), 409, 'invalid_request');
    expect(refused.message).toBe('you cannot disable your own account');
    expect((await call(t.authUrl, 'GET', '/me', { token: session })).body.disabled).toBe(false);
    // Another admin of the tenant may.
    expect((await call(t.url, 'POST', `/admin/users/${u.id}/disable`, { token: acme.admin })).body.disabled).toBe(true);
  });

  it('an unknown e-mail and a wrong password get the same answer, and both run the password hash', async () => {
    const acme = await t.tenant('ses-same');
    await createUser(acme.admin, 'real@same.example', 'viewer');
    const unknown = await login('nobody@same.example', 'wrong password here');
    const wrong = await login('real@same.example', 'wrong password here');
    const a = expectEnvelope(unknown, 401, 'authentication_error');
    const b = expectEnvelope(wrong, 401, 'authentication_error');
    expect({ ...a, traceId: '' }).toEqual({ ...b, traceId: '' });
    expect(Object.keys(unknown.headers).filter((h) => h !== 'date').sort()).toEqual(Object.keys(wrong.headers).filter((h) => h !== 'date').sort());
  });

  it('unicode e-mail addresses are accepted, normalised (NFC, lower case), and unique across tenants', async () => {
    const acme = await t.tenant('ses-uni');
    await createUser(acme.admin, 'José.Ñandú@exemplo.com.br', 'viewer');
    // The same address in decomposed form and other case.
    const r = await login('JOSE\u0301.ÑANDÚ@EXEMPLO.COM.BR');
    expect(r.status, r.text).toBe(200);
    expect((await call(t.authUrl, 'GET', '/me', { token: r.body.session_token })).body.email).toBe('josé.ñandú@exemplo.com.br');
    const other = await t.tenant('ses-uni-2');
    expectEnvelope(await call(t.url, 'POST', '/admin/users', { token: other.admin, body: { email: 'jose\u0301.ñandú@exemplo.com.br', name: 'x', role: 'viewer', password: PASSWORD } }), 409, 'invalid_request');
  });
});

describe('bad input changes nothing', () => {
  it('login: malformed JSON, wrong types, extra fields, a 1 MB password, a non-address', async () => {
    const before = [...t.gw.deps.store.sessions.getKeys()].length;
    const cases: [string | Buffer, number, string][] = [
      ['{"email":', 400, 'invalid_request'],
      ['', 400, 'invalid_request'],
      ['[]', 400, 'invalid_request'],
      [JSON.stringify({ email: 5, password: 'x' }), 400, 'invalid_request'],
      [JSON.stringify({ email: 'a@b.example', password: ['x'] }), 400, 'invalid_request'],
      [JSON.stringify({ email: 'a@b.example', password: 'x', admin: true }), 400, 'invalid_request'],
      [JSON.stringify({ email: 'a@b.example', password: 'p'.repeat(1_000_000) }), 400, 'invalid_request'],
      [JSON.stringify({ email: 'not an address', password: 'whatever it is' }), 400, 'invalid_request'],
      [JSON.stringify({ email: 'a@b.example', password: 'p'.repeat(1_100_000) }), 413, 'payload_too_large'],
    ];
    for (const [rawBody, status, type] of cases) {
      expectEnvelope(await call(t.authUrl, 'POST', '/login', { rawBody, headers: { 'content-type': 'application/json' } }), status, type);
    }
    expectEnvelope(await call(t.authUrl, 'POST', '/login', { rawBody: 'email=a&password=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 400, 'invalid_request');
    expect([...t.gw.deps.store.sessions.getKeys()].length).toBe(before);
    // None of them counted as a failed login of a@b.example.
    expect(t.gw.deps.passwordLogin.failures.failuresOf('a@b.example', '127.0.0.1')).toBe(0);
  });

  it('user creation: a short or 1 MB password, a bad e-mail, a wrong role: 400 and no user', async () => {
    const acme = await t.tenant('ses-bad');
    const bodies = [
      { email: 'x@bad.example', name: 'x', role: 'viewer', password: 'short' },
      { email: 'x@bad.example', name: 'x', role: 'viewer', password: 'p'.repeat(1_000_000) },
      { email: 'x@', name: 'x', role: 'viewer', password: PASSWORD },
      { email: 'x@bad.example', name: 'x', role: 'root', password: PASSWORD },
      { email: 'x@bad.example', name: 'x', role: 'viewer', password: 12345678901234 },
    ];
    for (const body of bodies) expectEnvelope(await call(t.url, 'POST', '/admin/users', { token: acme.admin, body }), 400, 'invalid_request');
    expectEnvelope(await call(t.url, 'POST', '/admin/users', { token: acme.operator, body: bodies[0] }), 403, 'permission_denied');
    expect((await call(t.url, 'GET', '/admin/users', { token: acme.admin })).body.data).toEqual([]);
  });

  it('forged, malformed, revoked and expired sessions: 401 with the error envelope', async () => {
    const acme = await t.tenant('ses-forged');
    await createUser(acme.admin, 'f@forged.example', 'viewer');
    for (const token of [generateToken('ses'), 'adu_ses_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'adu_ses_', 'adu_ses_%%%']) {
      expectEnvelope(await call(t.authUrl, 'GET', '/me', { token }), 401, 'authentication_error');
      expectEnvelope(await call(t.url, 'GET', '/admin/decisions', { token }), 401, 'authentication_error');
    }
    const session = (await login('f@forged.example')).body.session_token as string;
    const db = t.gw.deps.store.sessions;
    const rec = db.get(hashToken(session)) as { expires_at: string };
    await db.put(hashToken(session), { ...rec, expires_at: new Date(Date.now() - 1000).toISOString() });
    expect(expectEnvelope(await call(t.authUrl, 'GET', '/me', { token: session }), 401, 'authentication_error').message).toBe('session has expired');
  });
});

describe('failed-login limits', () => {
  it('per account and address: 429 with Retry-After once spent, right password included; an unknown e-mail alike', async () => {
    const limited = await startTestGateway({ passwordScryptLogN: 12, loginFailuresPerAccount: 3, loginFailuresPerAddress: 100 });
    try {
      expect((await call(limited.url, 'POST', '/admin/users', { token: limited.adminToken, body: { email: 'lim@it.example', name: 'L', role: 'viewer', password: PASSWORD } })).status).toBe(201);
      for (let i = 0; i < 3; i++) expectEnvelope(await call(limited.authUrl, 'POST', '/login', { body: { email: 'lim@it.example', password: 'nope nope nope' } }), 401, 'authentication_error');
      const blocked = await call(limited.authUrl, 'POST', '/login', { body: { email: 'lim@it.example', password: PASSWORD } });
      expectEnvelope(blocked, 429, 'rate_limit_exceeded');
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // An unknown address is limited the same way (its limit says nothing about whether it exists).
      for (let i = 0; i < 3; i++) await call(limited.authUrl, 'POST', '/login', { body: { email: 'ghost@it.example', password: 'nope nope nope' } });
      expectEnvelope(await call(limited.authUrl, 'POST', '/login', { body: { email: 'ghost@it.example', password: 'nope nope nope' } }), 429, 'rate_limit_exceeded');
    } finally {
      await limited.close();
    }
  });

  it('per address: failures over many accounts from one address are refused with 429', async () => {
    const limited = await startTestGateway({ passwordScryptLogN: 12, loginFailuresPerAccount: 100, loginFailuresPerAddress: 4 });
    try {
      for (let i = 0; i < 4; i++) expectEnvelope(await call(limited.authUrl, 'POST', '/login', { body: { email: `u${i}@addr.example`, password: 'nope nope nope' } }), 401, 'authentication_error');
      const r = await call(limited.authUrl, 'POST', '/login', { body: { email: 'fresh@addr.example', password: 'nope nope nope' } });
      expectEnvelope(r, 429, 'rate_limit_exceeded');
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('an unknown e-mail takes about as long as a wrong password (the hash runs for both)', async () => {
    // Cost 2^14 (about 16 MiB, tens of ms): without the dummy hash an unknown e-mail would answer in a millisecond or two.
    const timed = await startTestGateway({ passwordScryptLogN: 14, loginFailuresPerAccount: 100, loginFailuresPerAddress: 100 });
    try {
      const admin = timed.adminToken;
      expect((await call(timed.url, 'POST', '/admin/users', { token: admin, body: { email: 'slow@time.example', name: 'S', role: 'viewer', password: PASSWORD } })).status).toBe(201);
      const median = async (email: string) => {
        const ms: number[] = [];
        for (let i = 0; i < 5; i++) {
          const start = performance.now();
          expect((await call(timed.authUrl, 'POST', '/login', { body: { email, password: 'wrong password!' } })).status).toBe(401);
          ms.push(performance.now() - start);
        }
        return ms.sort((a, b) => a - b)[2] as number;
      };
      const wrong = await median('slow@time.example');
      const unknown = await median('nobody@time.example');
      expect(unknown).toBeGreaterThan(wrong * 0.3);
    } finally {
      await timed.close();
    }
  }, 60_000);
});
