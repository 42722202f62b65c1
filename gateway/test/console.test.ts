import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium } from './helpers/launch-chromium.js';
import { call, expectEnvelope, type TestGateway } from './helpers/start-test-gateway.js';
import { closeGatewayWithMock, startGatewayWithMock, type GatewayWithMock } from './helpers/gateway-with-mock.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/console/', import.meta.url));
const PASSWORD = 'console password 123';

let g: GatewayWithMock;
let t: TestGateway;
let browser: Browser;
let decisionIds: { allow: string; deny: string; held: string; held2: string };
/** Page errors and CSP violations seen by any page of the run: a strict CSP must break nothing. */
const pageProblems: string[] = [];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  g = await startGatewayWithMock({ passwordScryptLogN: 12 });
  t = g.t;
  const admin = t.adminToken;
  for (const [email, role] of [['admin@console.example', 'admin'], ['viewer@console.example', 'viewer']]) {
    expect((await call(t.url, 'POST', '/admin/users', { token: admin, body: { email, name: `The ${role}`, role, password: PASSWORD } })).status).toBe(201);
  }
  await call(t.url, 'POST', '/v1/policies', { token: admin, body: { name: 'no secrets', type: 'content_filter', risk: 90, rules: { patterns: ['secret plans'], action: 'DENY' } } });
  await call(t.url, 'POST', '/v1/policies', { token: admin, body: { name: 'hold payments', type: 'content_filter', risk: 40, rules: { patterns: ['wire money'], action: 'REQUIRE_APPROVAL' } } });
  const decide = async (text: string, agent: string) => (await call(t.url, 'POST', '/v1/decide', { token: admin, body: { agent_id: agent, action: { type: 'chat', payload: { text } } } })).body.envelope.decision_id as string;
  decisionIds = {
    allow: await decide('hello there', 'agent-alpha'),
    deny: await decide('share the secret plans', 'agent-beta'),
    held: await decide('wire money to X', 'agent-alpha'),
    held2: await decide('wire money to Y', 'agent-gamma'),
  };
  // One proxied call with a cost (gpt-4o, 1,000 + 1,000 tokens: 0.06875 BRL) for the spend chart.
  g.mock.next({ usage: { prompt_tokens: 1000, completion_tokens: 1000 } });
  const proxied = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: admin, headers: { 'x-svc-agent-id': 'agent-spender' }, body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] } });
  expect(proxied.status, proxied.text).toBe(200);
  // The agents page reads the agent registry: one agent registered through the API that made no decision, one suspended.
  expect((await call(t.url, 'POST', '/v1/agents/register', { token: admin, body: { agent_id: 'agent-registered', name: 'Quiet one', policy_pack: 'FREE_TIER_POLICIES' } })).status).toBe(201);
  expect((await call(t.url, 'POST', '/v1/agents/agent-gamma/suspend', { token: admin })).status).toBe(200);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await closeGatewayWithMock(g);
});

async function signIn(email: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') pageProblems.push(`console: ${m.text()}`);
  });
  // Any request to somewhere other than the service would be external network at run time.
  page.on('request', (r) => {
    if (!r.url().startsWith(t.authUrl) && !r.url().startsWith('data:')) pageProblems.push(`external request: ${r.url()}`);
  });
  const first = await page.goto(`${t.authUrl}/console`);
  expect(page.url()).toBe(`${t.authUrl}/console/login`);
  expect(first?.headers()['content-security-policy']).toContain("script-src 'self'");
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', PASSWORD);
  await Promise.all([page.waitForURL(`${t.authUrl}/console`), page.click('button[type=submit]')]);
  return { context, page };
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
}

describe('the console in a real headless Chromium', () => {
  it('a viewer signs in, sees the decisions the test made on every page, and cannot resolve', async () => {
    const { context, page } = await signIn('viewer@console.example');
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'aduana_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(session?.value).toMatch(/^adu_ses_/);

    // Overview: the counts of this test's decisions, and the charts drawn by the served script.
    expect(await page.textContent('#who')).toContain('viewer@console.example');
    expect(await page.textContent('#stat-total')).toBe('5');
    expect(await page.textContent('#stat-blocked')).toBe('60.0%');
    expect(await page.textContent('#stat-held')).toBe('2');
    await page.waitForSelector('#chart-verdicts[data-drawn="true"] canvas');
    await page.waitForSelector('#chart-latency[data-drawn="true"] canvas');
    await page.waitForSelector('#chart-spend[data-drawn="true"] canvas');
    expect(await page.textContent('#spend tbody')).toContain('agent-spender');
    expect(await page.textContent('#spend tbody')).toContain('0.0688');
    await shot(page, 'overview-viewer');

    await page.goto(`${t.authUrl}/console/decisions?since=all`);
    for (const id of Object.values(decisionIds)) expect(await page.locator(`tr[data-decision="${id}"]`).count()).toBe(1);
    expect(await page.locator('button[data-resolve]').count()).toBe(0);
    await page.selectOption('select[name=verdict]', 'DENY');
    await Promise.all([page.waitForURL(/verdict=DENY/), page.click('form.filters button')]);
    expect(await page.locator('#decisions tbody tr').count()).toBe(1);
    expect(await page.locator(`tr[data-decision="${decisionIds.deny}"]`).count()).toBe(1);
    await page.goto(`${t.authUrl}/console/decisions?since=all&agent=agent-alpha`);
    expect(await page.locator('#decisions tbody tr').count()).toBe(2);
    await shot(page, 'decisions-viewer');

    // A viewer who posts the resolve form anyway (with a valid CSRF token) is refused, and nothing changes.
    await page.goto(`${t.authUrl}/console/ledger`);
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const refused = await page.request.post(`${t.authUrl}/console/decisions/${decisionIds.held}/resolve`, { form: { csrf, resolution: 'APPROVED' }, maxRedirects: 0 });
    expect(refused.status()).toBe(403);
    expect((await call(t.url, 'GET', `/admin/decisions/${decisionIds.held}`, { token: t.adminToken })).body.resolution).toBeNull();

    await page.goto(`${t.authUrl}/console/agents`);
    for (const agent of ['agent-alpha', 'agent-beta', 'agent-gamma', 'agent-spender', 'agent-registered']) expect(await page.locator(`tr[data-agent="${agent}"]`).count()).toBe(1);
    expect(await page.locator('tr[data-agent="agent-alpha"] td').nth(1).textContent()).toBe('ACTIVE');
    expect(await page.locator('tr[data-agent="agent-gamma"] td').nth(1).textContent()).toBe('SUSPENDED');
    expect(await page.locator('tr[data-agent="agent-registered"] td').nth(3).textContent()).toBe('FREE_TIER_POLICIES');
    expect(await page.locator('tr[data-agent="agent-alpha"] td').nth(4).textContent()).toBe('2');
    await shot(page, 'agents-viewer');

    await page.goto(`${t.authUrl}/console/policies`);
    expect(await page.locator('#policies tbody tr').count()).toBe(2);
    expect(await page.textContent('main')).toContain('Read-only');
    expect(await page.locator('button[data-toggle]').count()).toBe(0);
    const policyId = (await page.locator('#policies tbody tr').first().getAttribute('data-policy')) as string;
    const noToggle = await page.request.post(`${t.authUrl}/console/policies/${policyId}/toggle`, { form: { csrf }, maxRedirects: 0 });
    expect(noToggle.status()).toBe(403);
    expect((await call(t.url, 'GET', `/v1/policies/${policyId}`, { token: t.adminToken })).body.enabled).toBe(true);
    await shot(page, 'policies-viewer');

    await page.goto(`${t.authUrl}/console/ledger`);
    expect(Number(await page.textContent('#ledger-size'))).toBeGreaterThanOrEqual(4);
    await Promise.all([page.waitForLoadState('load'), page.click('#verify')]);
    await page.waitForSelector('#verify-result');
    expect(await page.textContent('#verify-result')).toContain('Verified');
    await shot(page, 'ledger-viewer');

    // Sign out ends the session: the old cookie no longer opens a page.
    await Promise.all([page.waitForURL(`${t.authUrl}/console/login`), page.click('header button[type=submit]')]);
    expectEnvelope(await call(t.authUrl, 'GET', '/me', { token: session?.value }), 401, 'authentication_error');
    await context.close();
  }, 60_000);

  it('an admin signs in and resolves a held decision from the decisions page; the ledger records it', async () => {
    const { context, page } = await signIn('admin@console.example');
    await page.goto(`${t.authUrl}/console/decisions?since=all&verdict=REQUIRE_APPROVAL`);
    expect(await page.locator('#decisions tbody tr').count()).toBe(2);
    await shot(page, 'decisions-admin');
    const before = Number((await call(t.url, 'GET', '/v1/ledger/head', { token: t.adminToken })).body?.size ?? 0);
    await Promise.all([page.waitForURL(/resolved=/), page.click(`tr[data-decision="${decisionIds.held}"] button[data-resolve="APPROVED"]`)]);
    expect(await page.textContent('#notice')).toContain(decisionIds.held);
    const d = await call(t.url, 'GET', `/admin/decisions/${decisionIds.held}`, { token: t.adminToken });
    expect(d.body.resolution).toMatchObject({ status: 'APPROVED' });
    expect(await page.locator(`tr[data-decision="${decisionIds.held}"] .resolution`).textContent()).toBe('APPROVED');
    expect(await page.locator(`tr[data-decision="${decisionIds.held2}"] button[data-resolve]`).count()).toBe(2);
    if (before > 0) expect(Number((await call(t.url, 'GET', '/v1/ledger/head', { token: t.adminToken })).body.size)).toBe(before + 1);
    await shot(page, 'decisions-admin-resolved');
    // Admins switch a policy off and on again; the change is enforced at once.
    await page.goto(`${t.authUrl}/console/policies`);
    expect(await page.textContent('main')).not.toContain('Read-only');
    const row = page.locator('#policies tbody tr', { hasText: 'no secrets' });
    const id = (await row.getAttribute('data-policy')) as string;
    await Promise.all([page.waitForLoadState('load'), row.locator('button[data-toggle]').click()]);
    await page.waitForSelector(`tr[data-policy="${id}"] td.state:text("disabled")`);
    const decide = () => call(t.url, 'POST', '/v1/decide', { token: t.adminToken, body: { agent_id: 'agent-beta', action: { type: 'chat', payload: { text: 'the secret plans' } } } });
    expect((await decide()).body.envelope.execution_status).toBe('ALLOW');
    await shot(page, 'policies-admin');
    await Promise.all([page.waitForLoadState('load'), page.locator(`tr[data-policy="${id}"] button[data-toggle]`).click()]);
    await page.waitForSelector(`tr[data-policy="${id}"] td.state:text("enabled")`);
    expect((await decide()).body.envelope.execution_status).toBe('DENY');
    await page.goto(`${t.authUrl}/console`);
    await page.waitForSelector('#chart-verdicts[data-drawn="true"] canvas');
    await shot(page, 'overview-admin');
    await context.close();
  }, 60_000);

  it('the pages broke nothing under the CSP and fetched nothing from another origin', () => {
    expect(pageProblems).toEqual([]);
  });
});

describe('console requests without a browser', () => {
  it('missing, forged or expired session cookies lead to the sign-in page; nothing else is shown', async () => {
    for (const cookie of [undefined, 'aduana_session=adu_ses_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', `aduana_session=${t.adminToken}`, 'aduana_session=']) {
      for (const path of ['/console', '/console/decisions', '/console/agents', '/console/policies', '/console/ledger']) {
        const r = await call(t.authUrl, 'GET', path, { headers: cookie ? { cookie } : {} });
        expect(r.status, `${path} ${cookie}`).toBe(303);
        expect(r.headers.location).toBe('/console/login');
      }
    }
  });

  it('state-changing forms need the CSRF token: without it 403 and nothing changes', async () => {
    const login = await call(t.authUrl, 'POST', '/login', { body: { email: 'admin@console.example', password: PASSWORD } });
    const cookie = `aduana_session=${login.body.session_token}`;
    const form = { 'content-type': 'application/x-www-form-urlencoded', cookie };
    const noCsrf = await call(t.authUrl, 'POST', `/console/decisions/${decisionIds.held2}/resolve`, { rawBody: 'resolution=REJECTED', headers: form });
    expect(expectEnvelope(noCsrf, 403, 'permission_denied').message).toBe('missing or invalid CSRF token');
    const wrong = await call(t.authUrl, 'POST', `/console/decisions/${decisionIds.held2}/resolve`, { rawBody: 'resolution=REJECTED&csrf=guess', headers: form });
    expect(wrong.status).toBe(403);
    expect((await call(t.url, 'GET', `/admin/decisions/${decisionIds.held2}`, { token: t.adminToken })).body.resolution).toBeNull();
    expect((await call(t.authUrl, 'POST', '/console/logout', { rawBody: '', headers: form })).status).toBe(403);
    expect((await call(t.authUrl, 'GET', '/me', { token: login.body.session_token })).status).toBe(200);
    // The sign-in form too: a post without the token its cookie carries is refused before any password is checked.
    const signIn = await call(t.authUrl, 'POST', '/console/login', { rawBody: `email=admin%40console.example&password=${encodeURIComponent(PASSWORD)}&csrf=x`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(signIn.status).toBe(403);
    expect(signIn.headers['set-cookie']).toBeUndefined();
  });

  it('a wrong password on the sign-in form sends back to the form, which names the error; no session is set', async () => {
    const page = await call(t.authUrl, 'GET', '/console/login');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] as string;
    const cookie = (page.headers['set-cookie'] as string).split(';')[0] as string;
    const r = await call(t.authUrl, 'POST', '/console/login', { rawBody: `email=admin%40console.example&password=wrong&csrf=${csrf}`, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie } });
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/console/login?error=invalid_credentials');
    expect(r.headers['set-cookie']).toBeUndefined();
    expect((await call(t.authUrl, 'GET', r.headers.location as string)).text).toContain('invalid email or password');
    // Only the registry's sign-in errors are shown; anything else in the query shows nothing.
    expect((await call(t.authUrl, 'GET', '/console/login?error=<script>')).text).not.toContain('<script>');
  });

  it('serves its assets itself, uPlot included', async () => {
    for (const name of ['console.css', 'console.js', 'uplot.js', 'uplot.css']) {
      const r = await call(t.authUrl, 'GET', `/console/assets/${name}`);
      expect(r.status, name).toBe(200);
      expect(r.text.length).toBeGreaterThan(100);
    }
    expectEnvelope(await call(t.authUrl, 'GET', '/console/assets/..%2Fgateway.ts'), 404, 'not_found');
  });
});
