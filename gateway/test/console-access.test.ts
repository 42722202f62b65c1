import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from './helpers/launch-chromium.js';
import { call, expectEnvelope, startTestGateway, type CallResult, type TestGateway } from './helpers/start-test-gateway.js';
import { signInToConsole } from './helpers/console-sign-in.js';

/**
 * Token and user management in the console (issue 34, docs/console.md "Tokens and users"), in Chromium: as an admin
 * (create, secret shown once, revoke, users created, disabled), as a viewer (403 everywhere), and with bad input,
 * without the CSRF field and with another tenant's ids (refused, nothing changed).
 */
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/console/', import.meta.url));
const PASSWORD = 'access page password 1';

let t: TestGateway;
let browser: Browser;
const problems: string[] = [];
let adminUserId = '';
let otherTokenId = '';
let otherToken = '';
let otherUserId = '';
let otherAdmin = '';

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  t = await startTestGateway({ passwordScryptLogN: 12 });
  for (const [email, role] of [['admin@access.example', 'admin'], ['viewer@access.example', 'viewer']] as const) {
    const r = await call(t.url, 'POST', '/admin/users', { token: t.adminToken, body: { email, name: `The ${role}`, role, password: PASSWORD } });
    expect(r.status, r.text).toBe(201);
    if (role === 'admin') adminUserId = r.body.id;
  }
  // Self-service tokens are for tenants below the enterprise plan (the bootstrap tenant's): this one's is professional.
  expect((await call(t.url, 'PUT', '/admin/tenants/default/plan', { token: t.adminToken, body: { plan: 'professional' } })).status).toBe(200);
  // Another tenant, with a token and a user of its own: never shown here, and out of reach of this tenant's admin.
  const other = await t.tenant('other');
  otherAdmin = other.admin;
  const minted = await call(t.authUrl, 'POST', '/token', { token: other.admin, body: { name: 'other ci', role: 'operator' } });
  expect(minted.status, minted.text).toBe(200);
  otherToken = minted.body.token;
  otherTokenId = minted.body.id;
  const u = await call(t.url, 'POST', '/admin/users', { token: other.admin, body: { email: 'someone@other.example', name: 'Someone', role: 'viewer', password: PASSWORD } });
  expect(u.status, u.text).toBe(201);
  otherUserId = u.body.id;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const signIn = (email: string, password = PASSWORD): Promise<Page> => signInToConsole(browser, t.authUrl, email, password, problems, { viewport: { width: 1280, height: 900 } });

/** Tokens and users of both tenants and both ledgers' heads: what a refused request must leave as it was. */
async function state(): Promise<unknown> {
  const { tokens, users } = t.gw.deps;
  const head = async (token: string) => (await call(t.url, 'GET', '/v1/events/verify', { token })).body.head;
  return { tokens: tokens.list(), users: [...users.list('default'), ...users.list('other')], heads: [await head(t.adminToken), await head(otherAdmin)] };
}

/** The session cookie and CSRF token of a signed-in page, to post forms as its browser would (or without the field). */
async function session(page: Page): Promise<{ cookie: string; csrf: string }> {
  const cookie = (await page.context().cookies()).find((c) => c.name === 'aduana_session')?.value ?? '';
  const csrf = (await page.getAttribute('input[name=csrf]', 'value')) ?? '';
  expect(cookie).not.toBe('');
  return { cookie: `aduana_session=${cookie}`, csrf };
}

function post(s: { cookie: string }, path: string, fields: Record<string, string>): Promise<CallResult> {
  return call(t.authUrl, 'POST', path, { rawBody: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: s.cookie } });
}

async function submit(page: Page, button: string): Promise<number> {
  const [res] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click(button)]);
  await page.waitForLoadState('load');
  return res.status();
}

/** The audit trail's newest row of an action: its actor cell's text. */
async function auditActor(page: Page, action: string): Promise<string> {
  await page.goto(`${t.authUrl}/console/audit?action=${action}`);
  return (await page.locator('#audit tbody tr[data-action] td:nth-child(3)').first().textContent()) ?? '';
}

async function verifyLedger(page: Page): Promise<string> {
  await page.goto(`${t.authUrl}/console/ledger`);
  await Promise.all([page.waitForLoadState('load'), page.click('#verify')]);
  return (await page.textContent('#verify-result')) ?? '';
}

describe('tokens in the console (an admin, in Chromium)', () => {
  it('creates a token: its secret is shown once, on the answer to the POST (200, no-store), and it works against the API; revisiting never shows it; revoking refuses it at once (401 token_revoked)', async () => {
    const page = await signIn('admin@access.example');
    await page.goto(`${t.authUrl}/console/tokens`);
    expect(await page.locator('#tokens tr[data-token]').count()).toBe(t.gw.deps.tokens.list('default').length);
    expect(await page.locator(`tr[data-token="${otherTokenId}"]`).count()).toBe(0);
    await page.fill('#token-name', 'deploy pipeline');
    await page.selectOption('#token-role', 'operator');
    await page.fill('#token-days', '30');
    await page.fill('#token-agent', 'deploy-bot');
    const [answer] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/console/tokens')), page.click('#create-token-button')]);
    await page.waitForLoadState('load');
    expect(answer.status()).toBe(200);
    expect(answer.headers()['cache-control']).toBe('no-store');
    expect(answer.headers()['location']).toBeUndefined();
    const secret = await page.inputValue('#new-token');
    expect(secret).toMatch(/^adu_pat_/);
    expect(page.url()).toBe(`${t.authUrl}/console/tokens`);
    await page.screenshot({ path: `${ARTIFACTS}tokens-created.png`, fullPage: true });
    // A reload sends the form again: refused (409), no second token, the secret not shown.
    const count = t.gw.deps.tokens.list('default').length;
    const reloaded = await page.reload();
    expect(reloaded?.status()).toBe(409);
    expect(await page.textContent('#form-error')).toContain('already sent');
    expect(await page.content()).not.toContain(secret);
    expect(t.gw.deps.tokens.list('default')).toHaveLength(count);
    // Chromium reports the refusal's status on its console: that one line, and nothing else.
    expect(problems.splice(0)).toEqual([expect.stringContaining('409 (Conflict)')]);

    // The token authenticates at the API with what was asked for: role, tenant, agent binding, expiry.
    const record = t.gw.deps.tokens.findByToken(secret)!;
    expect(record).toMatchObject({ name: 'deploy pipeline', role: 'operator', tenant_id: 'default', agent_id: 'deploy-bot', user_id: adminUserId, revoked_at: null });
    const days = (Date.parse(record.expires_at) - Date.parse(record.created_at)) / 86_400_000;
    // Never past the login session it was made from (12 h), as POST /token with a session.
    expect(days).toBeLessThanOrEqual(0.5 + 1e-6);
    const verified = await call(t.authUrl, 'GET', '/verify', { token: secret });
    expect(verified.body).toMatchObject({ active: true, role: 'operator', tenantId: 'default', tokenId: record.id });
    expect((await call(t.url, 'GET', '/v1/policies', { token: secret })).status).toBe(200);

    // Revisiting (or coming back to) the page: listed, never its secret, its hash or any part of it.
    for (const path of ['/console/tokens', `/console/tokens?revoked=${record.id}`]) {
      await page.goto(`${t.authUrl}${path}`);
      const html = await page.content();
      expect(html).not.toContain(secret);
      expect(html).not.toContain(t.gw.deps.tokens.hashOf(record.id));
      expect(html).not.toContain(secret.slice(8, 20));
      expect(await page.locator('#new-token').count()).toBe(0);
      // Nor does a crafted link make it say a live token was revoked.
      expect(await page.locator('#notice').count()).toBe(0);
    }
    const row = page.locator(`tr[data-token="${record.id}"]`);
    expect(await row.locator('td').allTextContents()).toEqual(expect.arrayContaining(['deploy pipeline', 'operator', 'deploy-bot', 'live']));

    // Chained as the API's token.created, with the signed-in admin as the actor.
    expect(await auditActor(page, 'token.created')).toContain(adminUserId);

    // Revoke: the form's CSRF field is all it asks; the token is refused at once.
    await page.goto(`${t.authUrl}/console/tokens`);
    await Promise.all([page.waitForURL(/\/console\/tokens\?revoked=/), page.click(`button[data-revoke="${record.id}"]`)]);
    expect(await page.textContent('#notice')).toContain(`Token deploy pipeline (${record.id}) revoked`);
    expect(await page.textContent(`tr[data-token="${record.id}"] .state`)).toContain('revoked');
    expect(await page.locator(`button[data-revoke="${record.id}"]`).count()).toBe(0);
    const refused = expectEnvelope(await call(t.url, 'GET', '/v1/policies', { token: secret }), 401, 'authentication_error');
    expect(refused.message).toBe('token has been revoked');
    expect((await call(t.authUrl, 'GET', '/verify', { token: secret })).body).toEqual({ active: false });
    expect(await auditActor(page, 'token.revoked')).toContain(adminUserId);
    expect(await verifyLedger(page)).toContain('Verified');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('bad input is 400 with the form shown again as typed, and nothing is created', async () => {
    const page = await signIn('admin@access.example');
    await page.goto(`${t.authUrl}/console/tokens`);
    const before = await state();
    // In the browser, past its own checks (required, min, max): the server's refusal is what shows.
    await page.$eval('#create-token', (f) => f.setAttribute('novalidate', ''));
    await page.fill('#token-name', '');
    await page.fill('#token-agent', 'kept-as-typed');
    expect(await submit(page, '#create-token-button')).toBe(400);
    expect(await page.textContent('#form-error')).toContain('name');
    expect(await page.inputValue('#token-agent')).toBe('kept-as-typed');
    expect(await page.locator('#new-token').count()).toBe(0);
    await page.$eval('#create-token', (f) => f.setAttribute('novalidate', ''));
    await page.fill('#token-name', 'too long');
    await page.fill('#token-days', '366');
    expect(await submit(page, '#create-token-button')).toBe(400);
    expect(await page.textContent('#form-error')).toContain('expires_in_days: at most 365');
    expect(await page.inputValue('#token-name')).toBe('too long');

    const s = await session(page);
    const base = { csrf: s.csrf, name: 'n', role: 'viewer', expires_in_days: '30', once: randomBytes(16).toString('base64url') };
    const bads: Record<string, string>[] = [{ role: 'superuser' }, { role: '' }, { expires_in_days: '0' }, { expires_in_days: '3651' }, { expires_in_days: 'soon' }, { expires_in_days: '1.5' }, { name: 'x'.repeat(201) }, { agent_id: 'bad\u0001agent' }, { once: '' }, { once: 'not-a-form-id' }];
    for (const bad of bads) {
      const r = await post(s, '/console/tokens', { ...base, ...bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.text).not.toContain('adu_pat_');
      // Refused on the form itself, except a form without its one-time id (an out-of-date page): the error envelope.
      if (bad['once'] !== undefined) continue;
      expect(r.headers['content-type']).toContain('text/html');
      expect(r.text).toContain('id="form-error"');
    }
    expect(await state()).toEqual(before);
    await page.context().close();
  }, 60_000);
});

describe('users in the console (an admin, in Chromium)', () => {
  it('creates a user with a generated password (shown once) who then signs in; disabled, their session ends and they cannot sign in again', async () => {
    const admin = await signIn('admin@access.example');
    await admin.goto(`${t.authUrl}/console/users`);
    expect(await admin.locator(`tr[data-user="${otherUserId}"]`).count()).toBe(0);
    await admin.fill('#user-email', 'New.Person@Access.Example');
    await admin.fill('#user-name', 'New Person');
    await admin.selectOption('#user-role', 'operator');
    await admin.check('#password-generate');
    expect(await submit(admin, '#create-user-button')).toBe(200);
    const generated = await admin.inputValue('#new-password');
    expect(generated.length).toBeGreaterThanOrEqual(24);
    const created = t.gw.deps.users.byEmail('new.person@access.example')!;
    expect(created).toMatchObject({ tenant_id: 'default', role: 'operator', name: 'New Person', disabled_at: null });
    await admin.goto(`${t.authUrl}/console/users`);
    expect(await admin.content()).not.toContain(generated);
    expect(await admin.locator('#new-password').count()).toBe(0);
    expect(await auditActor(admin, 'user.created')).toContain(adminUserId);

    // The new user signs in with it.
    const person = await signIn('new.person@access.example', generated);
    expect(await person.textContent('#who')).toContain('new.person@access.example · operator');

    // Disabled by the admin: the person's open session is refused on its next page, and signing in again fails.
    await admin.goto(`${t.authUrl}/console/users`);
    await Promise.all([admin.waitForURL(/\/console\/users\?disabled=/), admin.click(`button[data-disable="${created.id}"]`)]);
    expect(await admin.textContent('#notice')).toContain('new.person@access.example disabled');
    expect(await admin.textContent(`tr[data-user="${created.id}"] .state`)).toContain('disabled');
    await person.goto(`${t.authUrl}/console/decisions`);
    expect(person.url()).toBe(`${t.authUrl}/console/login`);
    await person.fill('input[name=email]', 'new.person@access.example');
    await person.fill('input[name=password]', generated);
    await Promise.all([person.waitForURL(/\/console\/login\?error=/), person.click('button[type=submit]')]);
    expect((await call(t.authUrl, 'POST', '/login', { body: { email: 'new.person@access.example', password: generated } })).status).toBe(401);
    expect(await auditActor(admin, 'user.disabled')).toContain(adminUserId);
    expect(await verifyLedger(admin)).toContain('Verified');
    await person.context().close();
    await admin.context().close();
  }, 60_000);

  it('a typed password is checked by the API\'s rules (400, nothing created), then the user is created; an admin cannot disable themself', async () => {
    const admin = await signIn('admin@access.example');
    await admin.goto(`${t.authUrl}/console/users`);
    const before = await state();
    await admin.fill('#user-email', 'typed@access.example');
    await admin.fill('#user-name', 'Typed');
    await admin.check('#password-typed');
    await admin.fill('#user-password', 'short');
    expect(await submit(admin, '#create-user-button')).toBe(400);
    expect(await admin.textContent('#form-error')).toBe('password: at least 12 characters');
    expect(await admin.inputValue('#user-email')).toBe('typed@access.example');
    expect(await admin.inputValue('#user-password')).toBe('');
    const s = await session(admin);
    for (const bad of [{ role: 'root' }, { email: 'not an address' }, { name: '' }, { email: 'viewer@access.example' }]) {
      const r = await post(s, '/console/users', { csrf: s.csrf, email: 'x@access.example', name: 'X', role: 'viewer', password_mode: 'generate', ...bad });
      expect(r.status, JSON.stringify(bad)).toBe(bad.email === 'viewer@access.example' ? 409 : 400);
      expect(r.text).toContain('id="form-error"');
    }
    expect(await state()).toEqual(before);

    await admin.check('#password-typed');
    await admin.fill('#user-password', 'a typed password 1');
    await Promise.all([admin.waitForURL(/\/console\/users\?created=/), admin.click('#create-user-button')]);
    expect(await admin.textContent('#notice')).toContain('typed@access.example created');
    expect((await call(t.authUrl, 'POST', '/login', { body: { email: 'typed@access.example', password: 'a typed password 1' } })).status).toBe(200);

    // Themself: no button, and the post is refused with the reason on the page.
    expect(await admin.locator(`button[data-disable="${adminUserId}"]`).count()).toBe(0);
    const mid = await state();
    const own = await post(s, `/console/users/${adminUserId}/disable`, { csrf: s.csrf });
    expect(own.status).toBe(409);
    expect(own.text).toContain('you cannot disable your own account');
    expect(await state()).toEqual(mid);
    await admin.context().close();
  }, 60_000);
});

describe('refused: viewers, missing CSRF, another tenant\'s ids', () => {
  it('a viewer is 403 on every page and form of these, is not offered them, and nothing changes', async () => {
    const viewer = await signIn('viewer@access.example');
    expect(await viewer.locator('header nav a[href="/console/tokens"], header nav a[href="/console/users"]').count()).toBe(0);
    for (const path of ['/console/tokens', '/console/users']) {
      const res = await viewer.goto(`${t.authUrl}${path}`);
      expect(res?.status(), path).toBe(403);
      expect(await res?.text()).toContain('admin:manage');
    }
    await viewer.goto(`${t.authUrl}/console`);
    const s = await session(viewer);
    const tokenId = t.gw.deps.tokens.list('default')[0]!.id;
    const before = await state();
    for (const [path, fields] of [
      ['/console/tokens', { name: 'mine', role: 'viewer', once: randomBytes(16).toString('base64url') }],
      [`/console/tokens/${tokenId}/revoke`, {}],
      ['/console/users', { email: 'v@access.example', name: 'V', role: 'viewer', password_mode: 'generate' }],
      [`/console/users/${adminUserId}/disable`, {}],
    ] as const) {
      const e = expectEnvelope(await post(s, path, { csrf: s.csrf, ...fields }), 403, 'permission_denied');
      expect(e.message, path).toContain('admin:manage');
    }
    expect(await state()).toEqual(before);
    await viewer.context().close();
  }, 60_000);

  it('without the CSRF field, or with a wrong one, every form is 403 and nothing changes', async () => {
    const admin = await signIn('admin@access.example');
    const s = await session(admin);
    const live = t.gw.deps.tokens.list('default').find((r) => !r.revoked_at)!;
    const viewerId = t.gw.deps.users.byEmail('viewer@access.example')!.id;
    const before = await state();
    for (const csrf of [null, 'wrong', '']) {
      for (const [path, fields] of [
        ['/console/tokens', { name: 'csrf-less', role: 'viewer', once: randomBytes(16).toString('base64url') }],
        [`/console/tokens/${live.id}/revoke`, {}],
        ['/console/users', { email: 'c@access.example', name: 'C', role: 'viewer', password_mode: 'generate' }],
        [`/console/users/${viewerId}/disable`, {}],
      ] as const) {
        const r = await post(s, path, csrf === null ? fields : { csrf, ...fields });
        expect(expectEnvelope(r, 403, 'permission_denied').message, `${path} ${csrf}`).toBe('missing or invalid CSRF token');
      }
    }
    expect(await state()).toEqual(before);
    await admin.context().close();
  }, 60_000);

  it("another tenant's token and user ids are 404, and they stay as they were", async () => {
    const admin = await signIn('admin@access.example');
    const s = await session(admin);
    const before = await state();
    expectEnvelope(await post(s, `/console/tokens/${otherTokenId}/revoke`, { csrf: s.csrf }), 404, 'not_found');
    expectEnvelope(await post(s, `/console/users/${otherUserId}/disable`, { csrf: s.csrf }), 404, 'not_found');
    // Ids of no one, or of no such shape, are 404 too.
    expectEnvelope(await post(s, '/console/tokens/tok_01NOSUCHTOKEN/revoke', { csrf: s.csrf }), 404, 'not_found');
    expectEnvelope(await post(s, '/console/users/../disable', { csrf: s.csrf }), 404, 'not_found');
    expect(await state()).toEqual(before);
    expect((await call(t.authUrl, 'GET', '/verify', { token: otherToken })).body).toMatchObject({ active: true, tenantId: 'other' });
    expect((await call(t.authUrl, 'POST', '/login', { body: { email: 'someone@other.example', password: PASSWORD } })).status).toBe(200);
    await admin.context().close();
  }, 60_000);

  it('an enterprise tenant is offered no token form and a post is 403 self_service_disabled: its tokens come from its account manager', async () => {
    expect((await call(t.url, 'POST', '/admin/users', { token: otherAdmin, body: { email: 'boss@other.example', name: 'Boss', role: 'admin', password: PASSWORD } })).status).toBe(201);
    const admin = await signIn('boss@other.example');
    await admin.goto(`${t.authUrl}/console/tokens`);
    expect(await admin.locator('#self-service-disabled').count()).toBe(1);
    expect(await admin.locator('#create-token').count()).toBe(0);
    // Its own tokens are listed, and may be revoked here.
    expect(await admin.locator(`#tokens tr[data-token="${otherTokenId}"]`).count()).toBe(1);
    const s = await session(admin);
    const before = await state();
    const e = expectEnvelope(await post(s, '/console/tokens', { csrf: s.csrf, name: 'self-made', role: 'viewer', once: randomBytes(16).toString('base64url') }), 403, 'permission_denied');
    expect(e.message).toContain('enterprise');
    expect(await state()).toEqual(before);
    await admin.context().close();
  }, 60_000);
});
