import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '@aduana/shared';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ patMaxTtlDays: 365, verifyFailuresPerMinute: 5 });
});
afterAll(() => t.close());

const DAY = 86_400_000;

describe('POST /token', () => {
  it('authenticates before it parses: a bad body without a token is a 401, with a token a 400', async () => {
    const acme = await t.tenant('tok-parse');
    for (const rawBody of ['{bad', '', '[]']) {
      expectEnvelope(await call(t.authUrl, 'POST', '/token', { rawBody, headers: { 'content-type': 'application/json' } }), 401, 'authentication_error');
      expectEnvelope(await call(t.authUrl, 'POST', '/token', { rawBody, headers: { 'content-type': 'application/json', authorization: 'Bearer adu_pat_nope' } }), 401, 'authentication_error');
    }
    expectEnvelope(await call(t.authUrl, 'POST', '/token', { token: acme.admin, rawBody: '{bad', headers: { 'content-type': 'application/json' } }), 400, 'invalid_request');
  });

  it('is under the caller tenant\'s plan limit (community: a burst of 10, then 429 with Retry-After)', async () => {
    const small = await t.tenant('tok-plan', 'community');
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await call(t.authUrl, 'POST', '/token', { token: small.admin, body: { name: `t${i}`, role: 'viewer', expires_in_days: 1 } })).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const r = await call(t.authUrl, 'POST', '/token', { token: small.admin, body: { name: 'one too many', role: 'viewer', expires_in_days: 1 } });
    expectEnvelope(r, 429, 'rate_limit_exceeded');
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('refuses a lifetime over PAT_MAX_TTL_DAYS with a 400, and nothing is issued', async () => {
    const acme = await t.tenant('tok-ttl');
    const before = t.gw.deps.tokens.list('tok-ttl').length;
    for (const days of [366, 3650]) {
      const r = await call(t.authUrl, 'POST', '/token', { token: acme.admin, body: { name: 'forever', role: 'admin', expires_in_days: days } });
      expectEnvelope(r, 400, 'invalid_request');
      expect(r.body.error.message).toContain('365');
    }
    expect(t.gw.deps.tokens.list('tok-ttl')).toHaveLength(before);
    expect((await call(t.authUrl, 'POST', '/token', { token: acme.admin, body: { name: 'a year', role: 'viewer', expires_in_days: 365 } })).status).toBe(200);
  });

  it('never outlives the token that minted it', async () => {
    await t.tenant('tok-minter');
    const minter = await t.token('tok-minter', 'admin', 10);
    const minterExpiry = Date.parse(t.gw.deps.tokens.findByToken(minter)!.expires_at);
    const r = await call(t.authUrl, 'POST', '/token', { token: minter, body: { name: 'child', role: 'admin', expires_in_days: 300 } });
    expect(r.status).toBe(200);
    expect(Date.parse(r.body.expires_at)).toBeLessThanOrEqual(minterExpiry);
    expect(Date.parse(t.gw.deps.tokens.get(r.body.id)!.expires_at)).toBeLessThanOrEqual(minterExpiry);
    // A shorter lifetime than the minter's is kept as asked.
    const short = await call(t.authUrl, 'POST', '/token', { token: minter, body: { name: 'short', role: 'viewer', expires_in_days: 2 } });
    expect(Date.parse(short.body.expires_at) - Date.now()).toBeLessThan(2 * DAY + 60_000);
    expect(Date.parse(short.body.expires_at) - Date.now()).toBeGreaterThan(2 * DAY - 60_000);
  });

  it("a token minted with a login session never outlives the session", async () => {
    const acme = await t.tenant('tok-session');
    const password = 'a long enough password';
    expect((await call(t.url, 'POST', '/admin/users', { token: acme.admin, body: { email: 'minter@session.example', name: 'M', role: 'admin', password } })).status).toBe(201);
    const login = await call(t.authUrl, 'POST', '/login', { body: { email: 'minter@session.example', password } });
    expect(login.status, login.text).toBe(200);
    const sessionEnds = Date.parse(login.body.expires_at);
    const r = await call(t.authUrl, 'POST', '/token', { token: login.body.session_token, body: { name: 'from a session', role: 'admin', expires_in_days: 365 } });
    expect(r.status, r.text).toBe(200);
    expect(Date.parse(r.body.expires_at)).toBeLessThanOrEqual(sessionEnds);
    expect(Date.parse(t.gw.deps.tokens.get(r.body.id)!.expires_at)).toBeLessThanOrEqual(sessionEnds);
  });
});

describe('GET /verify', () => {
  it('is under the verified token\'s tenant plan limit', async () => {
    const small = await t.tenant('verify-plan', 'community');
    for (let i = 0; i < 10; i++) expect((await call(t.authUrl, 'GET', '/verify', { token: small.viewer })).body.active).toBe(true);
    const r = await call(t.authUrl, 'GET', '/verify', { token: small.viewer });
    expectEnvelope(r, 429, 'rate_limit_exceeded');
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('limits invalid tokens per client address, and then answers nothing about any token from it (no oracle)', async () => {
    // A gateway of its own: the per-address budget is this process's.
    const g = await startTestGateway({ verifyFailuresPerMinute: 5 });
    try {
      const acme = await g.tenant('verify-brute');
      expect((await call(g.authUrl, 'GET', '/verify', { token: acme.viewer })).body.active).toBe(true);
      const answers: number[] = [];
      for (let i = 0; i < 8; i++) answers.push((await call(g.authUrl, 'GET', '/verify', { token: generateToken('pat') })).status);
      expect(answers.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
      expect(answers.slice(5)).toEqual([429, 429, 429]);
      const blocked = await call(g.authUrl, 'GET', '/verify', { token: acme.viewer });
      expectEnvelope(blocked, 429, 'rate_limit_exceeded');
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expectEnvelope(await call(g.authUrl, 'GET', '/verify'), 429, 'rate_limit_exceeded');
      // The governance API is not the auth service's brute-force budget: it still authenticates the good token.
      expect((await call(g.url, 'GET', '/v1/policies', { token: acme.viewer })).status).toBe(200);
    } finally {
      await g.close();
    }
  });
});
