import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page, type Response } from 'playwright-core';
import { parse } from 'yaml';
import type { Role } from '../src/identity/auth/principal.js';
import { SESSION_COOKIE } from '../src/platform/cookies.js';
import { launchChromium } from './helpers/launch-chromium.js';
import { signInToConsole } from './helpers/console-sign-in.js';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { startSidecar, TestControlPlane, type TestSidecar } from './helpers/fleet-control-plane.js';
import { poll } from '../../shared/test/helpers/poll.js';

/**
 * The console's routes page (docs/console.md, "Routes"): every role reads the tenant's routes, credentials by name
 * only; an admin edits them as YAML or JSON and deletes them, through the API's validation, store and ledger entries;
 * a viewer's post is 403, a post without the CSRF token 403; one tenant never sees another's; a fleet sidecar shows
 * its routes and refuses changes. Real gateway, real LMDB, real Chromium.
 */
const PASSWORD = 'routes console password 1';
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/console/', import.meta.url));
const KEY = '7c'.repeat(32);
const SECRET = 'sk-console-routes-STORED-4f1d9a77c2';
const ENV_SECRET = 'sk-console-routes-ENVIRONMENT-88e0b1';
const ENV_VAR = 'ADUANA_CREDENTIAL_CONSOLE_ENV';

/** Version 1, set through the API: two targets (one azure with deployments and a rotation), two model routes. */
const FIRST = {
  targets: {
    'openai-main': { provider: 'openai', base_url: 'https://api.openai.com/v1', credential: 'openai-prod' },
    'azure-eu': { provider: 'azure', base_url: 'https://x.openai.azure.com', credentials: ['openai-prod', 'console-env'], deployments: { 'gpt-4o': 'gpt4o-eu' } },
  },
  models: {
    'gpt-4o': { strategy: 'fallback', targets: ['openai-main', 'azure-eu'] },
    fast: { strategy: 'weighted', targets: [{ target: 'openai-main', model: 'gpt-4.1-mini', weight: 3 }, { target: 'azure-eu', weight: 1 }] },
  },
  retry: { attempts: 3 },
  timeouts_ms: { connect: 2000 },
  breaker: { open_s: 60 },
};

/** What the admin types for version 2. */
const SECOND_YAML = `targets:
  local: { provider: openai, base_url: http://vllm:8000/v1, credential: console-env }
models:
  qwen: { strategy: fallback, targets: [{ target: local, model: Qwen/Qwen3-8B }] }
`;

let t: TestGateway;
let browser: Browser;
let other: Record<Role, string>;
const problems: string[] = [];

beforeAll(async () => {
  process.env[ENV_VAR] = ENV_SECRET;
  t = await startTestGateway({ passwordScryptLogN: 12, credentialsKey: KEY });
  for (const [email, role] of [['admin@routes.example', 'admin'], ['viewer@routes.example', 'viewer']]) {
    expect((await call(t.url, 'POST', '/admin/users', { token: t.adminToken, body: { email, name: `The ${role}`, role, password: PASSWORD } })).status).toBe(201);
  }
  expect((await call(t.url, 'PUT', '/v1/credentials/openai-prod', { token: t.adminToken, body: { secret: SECRET } })).status).toBe(201);
  // Another tenant, with routes of its own and an admin who signs in to the console.
  other = await t.tenant('routes-other');
  expect((await call(t.url, 'POST', '/admin/users', { token: other.admin, body: { email: 'admin@routes-other.example', name: 'Other admin', role: 'admin', password: PASSWORD } })).status).toBe(201);
  const theirs = await call(t.url, 'PUT', '/v1/routes', { token: other.admin, body: { targets: { 'other-tenant-target': { provider: 'anthropic', base_url: 'https://other.example' } } } });
  expect(theirs.status, theirs.text).toBe(200);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  delete process.env[ENV_VAR];
  await browser?.close();
  await t?.close();
});

const signIn = (email: string): Promise<Page> => signInToConsole(browser, t.authUrl, email, PASSWORD, problems);
const routesOf = async (token = t.adminToken) => (await call(t.url, 'GET', '/v1/routes', { token })).body;
const chained = (eventType: 'routes.updated' | 'routes.deleted', tenant = 'default') => t.gw.deps.ledger.list(tenant, { limit: 100, order: 'asc', eventType, cursor: null }).events;

/** Opens the routes page; the raw HTML as served. */
async function open(page: Page): Promise<string> {
  const r = await page.goto(`${t.authUrl}/console/routes`);
  expect(r?.status()).toBe(200);
  return (await r?.text()) ?? '';
}

/** Clicks a form's button; the answer to its POST (before any redirect). */
async function post(page: Page, button: string): Promise<Response> {
  const [answer] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/console/routes')), page.click(button)]);
  await page.waitForLoadState('load');
  return answer;
}

/** A form post from the signed-in page (same origin, its session cookie), with the given fields; its status and body. */
function forge(page: Page, path: string, fields: Record<string, string>): Promise<{ status: number; body: string }> {
  return page.evaluate(
    async ([p, f]) => {
      const r = await fetch(p, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(f).toString(), redirect: 'manual' });
      return { status: r.status, body: await r.text() };
    },
    [path, fields] as const,
  );
}

const csrfOf = async (page: Page): Promise<string> => (await page.getAttribute('input[name=csrf]', 'value')) ?? '';

describe('the console routes page', () => {
  it('without routes says calls take the default route, and is in the navigation', async () => {
    const page = await signIn('viewer@routes.example');
    expect(await page.getAttribute('header nav a[href="/console/routes"]', 'href')).toBe('/console/routes');
    await Promise.all([page.waitForURL(`${t.authUrl}/console/routes`), page.click('header nav a[href="/console/routes"]')]);
    expect(await page.textContent('#routes-none')).toContain('UPSTREAM_*');
    expect(await page.locator('#routes-targets').count()).toBe(0);
    await page.context().close();
  });

  it('a viewer reads the routes (credential names, never a secret) and is refused every change: 403, nothing changed', async () => {
    const put = await call(t.url, 'PUT', '/v1/routes', { token: t.adminToken, body: FIRST });
    expect(put.status, put.text).toBe(200);
    expect(put.body.version).toBe(1);
    const page = await signIn('viewer@routes.example');
    const html = await open(page);
    expect(await page.textContent('#routes-version')).toContain('Version 1');
    const row = (name: string) => page.locator(`#routes-targets tr[data-target="${name}"] td`).allTextContents();
    expect(await row('openai-main')).toEqual(['openai-main', 'openai', 'https://api.openai.com/v1', 'openai-prod', '—']);
    const azure = await row('azure-eu');
    expect(azure.slice(0, 3)).toEqual(['azure-eu', 'azure', 'https://x.openai.azure.com']);
    expect(azure[3]).toBe('openai-prod, console-env (rotated)');
    expect(azure[4]).toBe('gpt-4o → gpt4o-eu');
    expect(await page.locator('#routes-models tr[data-model="gpt-4o"] li').allTextContents()).toEqual(['openai-main', 'azure-eu']);
    expect(await page.locator('#routes-models tr[data-model="fast"] li').allTextContents()).toEqual(['openai-main as gpt-4.1-mini weight 3 (75.0 %)', 'azure-eu weight 1 (25.0 %)']);
    expect(await page.textContent('#retry-attempts')).toBe('3');
    expect(await page.textContent('#timeout-connect')).toBe('2000 ms');
    expect(await page.textContent('#timeout-first-byte')).toBe('120000 ms (default)');
    expect(await page.textContent('#breaker')).toBe('opens after 5 (default) failures in a row, for 60 s');
    // Read-only: no editor, no credentials list (the API lists credentials to admins only).
    expect(await page.locator('#routes-form, #delete-routes-form, #credentials').count()).toBe(0);
    expect(await page.textContent('#routes-read-only')).toContain('Only an admin');
    expect(html).not.toContain(SECRET);
    expect(html).not.toContain(ENV_SECRET);

    // A forged post, with the viewer's own valid CSRF token: refused by the route's guard, before its body is read.
    const csrf = await csrfOf(page);
    const save = await forge(page, '/console/routes', { csrf, routes: SECOND_YAML });
    expect(save.status).toBe(403);
    expect(JSON.parse(save.body).error.type).toBe('permission_denied');
    expect((await forge(page, '/console/routes/delete', { csrf })).status).toBe(403);
    expect((await routesOf()).version).toBe(1);
    expect(chained('routes.updated')).toHaveLength(1);
    expect(chained('routes.deleted')).toHaveLength(0);
    await page.context().close();
  });

  it("an admin sees the credentials by name and source, never a secret; a post without the CSRF token is refused", async () => {
    const page = await signIn('admin@routes.example');
    const html = await open(page);
    const creds = await page.locator('#credentials tbody tr').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-credential'), r.querySelectorAll('td')[1]?.textContent]));
    expect(creds).toContainEqual(['openai-prod', 'stored']);
    expect(creds).toContainEqual(['console_env', `environment (${ENV_VAR})`]);
    expect(await page.textContent('#credentials-key')).toContain('CREDENTIALS_KEY is set');
    expect(html).not.toContain(SECRET);
    expect(html).not.toContain(ENV_SECRET);
    // The editor holds the routes in force as YAML, which parses back to them.
    expect(parse(await page.inputValue('#routes-text'))).toEqual(FIRST);

    const withoutToken: Record<string, string>[] = [{ routes: SECOND_YAML }, { csrf: 'not-the-token', routes: SECOND_YAML }];
    for (const fields of withoutToken) {
      const refused = await forge(page, '/console/routes', fields);
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body).error.message).toBe('missing or invalid CSRF token');
    }
    expect((await forge(page, '/console/routes/delete', {})).status).toBe(403);
    expect((await routesOf()).version).toBe(1);
    expect(chained('routes.updated')).toHaveLength(1);
    await page.context().close();
  });

  it('an admin edits: a refusal shows the validator\'s message above the text as typed (400, nothing changed); a save is the next version, chained', async () => {
    const page = await signIn('admin@routes.example');
    await open(page);
    const head = t.gw.deps.ledger.head('default').size;

    // Names a credential the tenant has not: the API's own message.
    const ghost = SECOND_YAML.replace('console-env', 'ghost');
    await page.fill('#routes-text', ghost);
    expect((await post(page, '#save-routes')).status()).toBe(400);
    expect(await page.textContent('#routes-error')).toBe('targets.local.credential: unknown credential "ghost": this tenant has no provider credential of that name');
    expect(await page.inputValue('#routes-text')).toBe(ghost);
    // The same message the API gives for the same routes.
    expect(expectEnvelope(await call(t.url, 'PUT', '/v1/routes', { token: t.adminToken, body: parse(ghost) }), 400, 'invalid_request').message).toBe(await page.textContent('#routes-error'));
    // The routes in force are still shown above the editor.
    expect(await page.locator('#routes-targets tr[data-target="openai-main"]').count()).toBe(1);

    for (const [text, message] of [
      ['targets: {', /^The routes are not YAML or JSON: /],
      ['# nothing but a comment\n', /holds no routes/],
      ['{"targets": {}}', /^targets: at least one target/],
    ] as const) {
      await page.fill('#routes-text', text);
      expect((await post(page, '#save-routes')).status(), text).toBe(400);
      expect(await page.textContent('#routes-error')).toMatch(message);
      expect(await page.inputValue('#routes-text')).toBe(text);
    }
    expect((await routesOf()).version).toBe(1);
    expect(t.gw.deps.ledger.head('default').size).toBe(head);

    // The routes in force, saved again unchanged: nothing changed, nothing chained.
    await open(page);
    expect((await post(page, '#save-routes')).status()).toBe(303);
    expect(page.url()).toBe(`${t.authUrl}/console/routes?unchanged=1`);
    expect(await page.textContent('#routes-notice')).toContain('Nothing changed: version 1');
    expect(t.gw.deps.ledger.head('default').size).toBe(head);

    // Saved: version 2, as the API shows it, chained as routes.updated by the admin's session.
    await page.fill('#routes-text', SECOND_YAML);
    expect((await post(page, '#save-routes')).status()).toBe(303);
    expect(page.url()).toBe(`${t.authUrl}/console/routes?saved=2`);
    expect(await page.textContent('#routes-notice')).toBe('Routes saved: version 2.');
    expect(await page.textContent('#routes-version')).toContain('Version 2');
    expect(await page.locator('#routes-targets tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-target')))).toEqual(['local']);
    expect(await page.locator('#routes-models tr[data-model="qwen"] li').allTextContents()).toEqual(['local as Qwen/Qwen3-8B']);
    const now = await routesOf();
    expect(now.version).toBe(2);
    expect(now.routes).toEqual(parse(SECOND_YAML));
    expect(now.updated_by).toMatch(/^ses_/);
    const updates = chained('routes.updated');
    expect(updates).toHaveLength(2);
    const admin = t.gw.deps.users.list('default').find((u) => u.email === 'admin@routes.example');
    expect(updates[1]?.payload).toMatchObject({ action: 'routes.updated', target: 'routes', actor: { by: now.updated_by, user: admin?.id } });
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}routes.png`, fullPage: true });
    await page.context().close();
  });

  it('another tenant\'s routes are never shown, and its admin\'s changes are its own', async () => {
    const page = await signIn('admin@routes-other.example');
    const html = await open(page);
    expect(await page.locator('#routes-targets tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-target')))).toEqual(['other-tenant-target']);
    for (const mine of ['openai-main', 'azure-eu', 'Qwen/Qwen3-8B', 'vllm:8000', 'openai-prod']) expect(html).not.toContain(mine);
    // The default tenant's credentials are not its: a route naming one is refused there.
    await page.fill('#routes-text', "targets: { t: { provider: openai, base_url: 'https://x.example', credential: openai-prod } }");
    expect((await post(page, '#save-routes')).status()).toBe(400);
    expect(await page.textContent('#routes-error')).toContain('unknown credential "openai-prod"');
    await page.close();
    const defaultPage = await signIn('viewer@routes.example');
    expect(await open(defaultPage)).not.toContain('other-tenant-target');
    await defaultPage.context().close();
    expect((await routesOf()).version).toBe(2);
    expect((await routesOf(other.admin)).version).toBe(1);
  });

  it('an admin deletes the routes: the default route again, chained as routes.deleted; deleting again changes nothing', async () => {
    const page = await signIn('admin@routes.example');
    await open(page);
    expect((await post(page, '#delete-routes')).status()).toBe(303);
    expect(page.url()).toBe(`${t.authUrl}/console/routes?deleted=3`);
    expect(await page.textContent('#routes-notice')).toContain('Routes deleted (version 3)');
    expect(await page.textContent('#routes-none')).toContain('default route');
    expect(await page.locator('#delete-routes').count()).toBe(0);
    expect(await routesOf()).toMatchObject({ version: 3, routes: null });
    expect(chained('routes.deleted')).toHaveLength(1);
    // A second deletion (another tab): said on the page, nothing chained.
    const again = await forge(page, '/console/routes/delete', { csrf: await csrfOf(page) });
    expect(again.status).toBe(404);
    expect(again.body).toContain('Nothing changed: this tenant has no routes.');
    expect(chained('routes.deleted')).toHaveLength(1);
    expect((await routesOf(other.admin)).version).toBe(1);
    await page.context().close();
    // No script error and no CSP refusal on any page; the refused posts this file makes are the only failed loads.
    expect(problems.filter((p) => !p.startsWith('console: Failed to load resource: the server responded with a status of 40'))).toEqual([]);
  });
});

describe('the routes page at a fleet sidecar', () => {
  let cp: TestControlPlane;
  let s: TestSidecar;
  afterAll(async () => {
    await s?.close();
    await cp?.close();
  });

  it('shows the routes, says they are set at the control plane, and refuses a change (409 sidecar_read_only)', async () => {
    cp = await TestControlPlane.start();
    const tokens = await cp.gw.tenant('routes-fleet');
    const user = await call(cp.gw.url, 'POST', '/admin/users', { token: tokens.admin, body: { email: 'admin@routes-fleet.example', name: 'Fleet admin', role: 'admin', password: PASSWORD } });
    expect(user.status, user.text).toBe(201);
    cp.bump();
    s = await startSidecar(cp.url, (await cp.sidecarTokens.create('routes', ['routes-fleet'])).token);
    expect(await poll(async () => s.gw.deps.users.get(user.body.id) !== undefined, { what: 'the sidecar to hold the user', timeoutMs: 5000 })).toBe(true);
    // The sidecar's routes as its store holds them (the API refuses every change at a sidecar).
    await s.gw.deps.routes.put('routes-fleet', { targets: { 'fleet-target': { provider: 'openai', base_url: 'https://fleet.example/v1' } } }, 'test');
    const session = await s.gw.deps.sessions.open('routes-fleet', user.body.id, 'password');
    const cookie = `${SESSION_COOKIE}=${session.token}`;
    const shown = await call(s.authUrl, 'GET', '/console/routes', { headers: { cookie } });
    expect(shown.status, shown.text).toBe(200);
    expect(shown.text).toContain('data-target="fleet-target"');
    expect(shown.text).toContain(`its routes are set at its control plane, <span class="mono">${cp.url}</span>`);
    expect(shown.text).not.toContain('id="routes-form"');
    expect(shown.text).not.toContain('id="delete-routes-form"');
    const form = (fields: Record<string, string>) => ({ headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, rawBody: new URLSearchParams(fields).toString() });
    expect(expectEnvelope(await call(s.authUrl, 'POST', '/console/routes', form({ csrf: session.record.csrf, routes: SECOND_YAML })), 409, 'invalid_request').message).toContain(`this gateway is a sidecar: make this change at its control plane, ${cp.url}`);
    expectEnvelope(await call(s.authUrl, 'POST', '/console/routes/delete', form({ csrf: session.record.csrf })), 409, 'invalid_request');
    expect(s.gw.deps.routes.state('routes-fleet').version).toBe(1);
  }, 60_000);
});
