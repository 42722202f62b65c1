import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from './helpers/launch-chromium.js';
import { call } from './helpers/start-test-gateway.js';
import { closeGatewayWithMock, startGatewayWithMock, type GatewayWithMock } from './helpers/gateway-with-mock.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/console/', import.meta.url));
const PASSWORD = 'console password 123';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let g: GatewayWithMock;
let browser: Browser;
let heldIds: string[] = [];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  g = await startGatewayWithMock({ passwordScryptLogN: 12, requestLogKey: 'a1'.repeat(32) });
  const { t } = g;
  const admin = t.adminToken;
  for (const [email, role] of [['admin@a11y.example', 'admin'], ['viewer-with-a-rather-long-address@a11y.example', 'viewer']]) {
    expect((await call(t.url, 'POST', '/admin/users', { token: admin, body: { email, name: `The ${role}`, role, password: PASSWORD } })).status).toBe(201);
  }
  await call(t.url, 'POST', '/v1/policies', { token: admin, body: { name: 'no secrets', type: 'content_filter', risk: 90, rules: { patterns: ['secret plans'], action: 'DENY' } } });
  await call(t.url, 'POST', '/v1/policies', { token: admin, body: { name: 'hold payments', type: 'content_filter', risk: 40, rules: { patterns: ['wire money'], action: 'REQUIRE_APPROVAL' } } });
  const decide = async (text: string, agent: string) => (await call(t.url, 'POST', '/v1/decide', { token: admin, body: { agent_id: agent, action: { type: 'chat', payload: { text } } } })).body.envelope.decision_id as string;
  await decide('hello there', 'agent-with-a-long-identifier-alpha');
  await decide('share the secret plans', 'agent-beta');
  heldIds = [await decide('wire money to X', 'agent-alpha'), await decide('wire money to Y', 'agent-gamma'), await decide('wire money to Z', 'agent-gamma')];
  // One held decision resolved: the pages show it resolved, and Held no longer counts it.
  const resolved = await call(t.url, 'POST', `/admin/decisions/${heldIds[0]}/resolve`, { token: admin, body: { resolution: 'APPROVED' } });
  expect(resolved.status, resolved.text).toBe(200);
  // The request log on at rate 1: the proxied calls' pages show their sampled texts.
  expect((await call(t.url, 'PUT', '/v1/settings/request-log', { token: admin, body: { enabled: true, sample_rate: 1 } })).status).toBe(200);
  // Two proxied calls with a small cost each (gpt-4o): spend well under one real, the range whose axis read 0.001, 0, 0, 0.
  for (const agent of ['agent-spender', 'agent-thrifty']) {
    g.mock.next({ usage: { prompt_tokens: 100, completion_tokens: agent === 'agent-spender' ? 100 : 20 } });
    const proxied = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: admin, headers: { 'x-svc-agent-id': agent }, body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] } });
    expect(proxied.status, proxied.text).toBe(200);
  }
  // Routes for the routes page's tables (after the proxied calls above, which take the default route).
  const routes = await call(t.url, 'PUT', '/v1/routes', {
    token: admin,
    body: {
      targets: {
        'openai-main-with-a-long-name': { provider: 'openai', base_url: 'https://api.openai.com/v1' },
        'azure-eu': { provider: 'azure', base_url: 'https://a-long-resource-name.openai.azure.com', deployments: { 'gpt-4o': 'gpt4o-eu-deployment' } },
      },
      models: { 'gpt-4o-routed': { strategy: 'weighted', targets: [{ target: 'openai-main-with-a-long-name', model: 'gpt-4.1-mini', weight: 3 }, 'azure-eu'] } },
      retry: { attempts: 1 },
    },
  });
  expect(routes.status, routes.text).toBe(200);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await closeGatewayWithMock(g);
});

async function signIn(page: Page, email: string): Promise<void> {
  const url = g.t.authUrl;
  await page.goto(`${url}/console/login`);
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', PASSWORD);
  await Promise.all([page.waitForURL(`${url}/console`), page.click('button[type=submit]')]);
}

/** Serious and critical axe violations of the page as it is now, one line each (rule, impact, first elements). */
async function axeProblems(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

/** Every page of the console a signed-in person can open (GET), the overview first. */
const SIGNED_IN_PAGES = ['/console', '/console/decisions?since=all', '/console/agents', '/console/costs', '/console/policies', '/console/ledger', '/console/audit', '/console/settings', '/console/routes', '/console/decisions?since=all&limit=2&verdict=ALLOW', '/console/ledger/entries/1', '/console/ledger/checkpoints'];

async function checkPage(page: Page, label: string, width: number): Promise<string[]> {
  // The overview is checked with its charts drawn (legends included).
  if ((await page.locator('#chart-data').count()) > 0) await page.waitForSelector('#chart-verdicts[data-drawn="true"] canvas');
  const problems = (await axeProblems(page)).map((p) => `${label} at ${width}px: ${p}`);
  // Named in the issue though axe rates them below serious: one <main> landmark, no table header without text.
  if ((await page.locator('main').count()) !== 1) problems.push(`${label}: not exactly one <main>`);
  const emptyHeaders = await page.locator('th').evaluateAll((ths) => ths.filter((th) => (th.textContent ?? '').trim() === '').length);
  if (emptyHeaders > 0) problems.push(`${label}: ${emptyHeaders} empty table header(s)`);
  const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
  if (scrollWidth > width) problems.push(`${label} at ${width}px: the page is ${scrollWidth}px wide`);
  return problems;
}

describe('console accessibility and layout (axe-core in real Chromium, desktop and 390 px)', () => {
  for (const viewport of [DESKTOP, PHONE]) {
    it(`no serious or critical axe violation and no horizontal overflow at ${viewport.width}px, signed out, as admin and as viewer`, async () => {
      const problems: string[] = [];
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      for (const path of ['/console/login', '/console/login?error=invalid_credentials']) {
        await page.goto(`${g.t.authUrl}${path}`);
        problems.push(...(await checkPage(page, path, viewport.width)));
      }
      for (const email of ['admin@a11y.example', 'viewer-with-a-rather-long-address@a11y.example']) {
        await context.clearCookies();
        await signIn(page, email);
        for (const path of SIGNED_IN_PAGES) {
          await page.goto(`${g.t.authUrl}${path}`);
          problems.push(...(await checkPage(page, `${email} ${path}`, viewport.width)));
        }
        // Each decision's own page (allowed, denied, held and awaiting, held and resolved, proxied with a cost).
        await page.goto(`${g.t.authUrl}/console/decisions?since=all`);
        const details = await page.locator('a[data-detail]').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
        expect(details.length).toBeGreaterThanOrEqual(7);
        for (const path of details) {
          await page.goto(`${g.t.authUrl}${path}`);
          problems.push(...(await checkPage(page, `${email} ${path}`, viewport.width)));
        }
        // The ledger page after a verification (a form post's answer).
        await page.goto(`${g.t.authUrl}/console/ledger`);
        await Promise.all([page.waitForLoadState('load'), page.click('#verify')]);
        await page.waitForSelector('#verify-result');
        problems.push(...(await checkPage(page, `${email} ledger verified`, viewport.width)));
        // The policy editor (admins only): as opened, after a dry run (its result table) and with a validation error.
        if (email.startsWith('admin')) {
          await page.goto(`${g.t.authUrl}/console/policies/editor`);
          problems.push(...(await checkPage(page, `${email} policy editor`, viewport.width)));
          await Promise.all([page.waitForLoadState('load'), page.click('#dry-run-button')]);
          await page.waitForSelector('#dry-run');
          problems.push(...(await checkPage(page, `${email} policy editor's dry run`, viewport.width)));
          await page.fill('#policy-json', '{"name": "no type"}');
          await Promise.all([page.waitForLoadState('load'), page.click('#dry-run-button')]);
          await page.waitForSelector('#editor-error');
          problems.push(...(await checkPage(page, `${email} policy editor's error`, viewport.width)));
          // The routes editor (admins only) with a refusal: the validator's message above the routes as typed.
          await page.goto(`${g.t.authUrl}/console/routes`);
          await page.fill('#routes-text', 'targets: {}');
          await Promise.all([page.waitForLoadState('load'), page.click('#save-routes')]);
          await page.waitForSelector('#routes-error');
          problems.push(...(await checkPage(page, `${email} routes editor's error`, viewport.width)));
          // Tokens and users (admins only): as listed, a new token's secret, a refused form, a generated password.
          for (const path of ['/console/tokens', '/console/users']) {
            await page.goto(`${g.t.authUrl}${path}`);
            problems.push(...(await checkPage(page, `${email} ${path}`, viewport.width)));
          }
          // The bootstrap tenant is on the enterprise plan: its page says why it offers no form (docs/console.md).
          await page.goto(`${g.t.authUrl}/console/tokens`);
          await page.waitForSelector('#self-service-disabled');
          const plan = (p: string) => call(g.t.url, 'PUT', '/admin/tenants/default/plan', { token: g.t.adminToken, body: { plan: p } });
          expect((await plan('professional')).status).toBe(200);
          await page.goto(`${g.t.authUrl}/console/tokens`);
          await page.fill('#token-name', `a11y ${viewport.width}`);
          await page.fill('#token-agent', 'agent-with-a-long-identifier-alpha');
          await Promise.all([page.waitForLoadState('load'), page.click('#create-token-button')]);
          await page.waitForSelector('#new-token');
          problems.push(...(await checkPage(page, `${email} token created`, viewport.width)));
          await page.$eval('#create-token', (f) => f.setAttribute('novalidate', ''));
          await page.fill('#token-days', '0');
          await Promise.all([page.waitForLoadState('load'), page.click('#create-token-button')]);
          await page.waitForSelector('#form-error');
          problems.push(...(await checkPage(page, `${email} token refused`, viewport.width)));
          expect((await plan('enterprise')).status).toBe(200);
          await page.goto(`${g.t.authUrl}/console/users`);
          await page.fill('#user-email', `a11y-${viewport.width}@a11y.example`);
          await page.fill('#user-name', 'A11y');
          await Promise.all([page.waitForLoadState('load'), page.click('#create-user-button')]);
          await page.waitForSelector('#new-password');
          problems.push(...(await checkPage(page, `${email} user created`, viewport.width)));
        }
      }
      await context.close();
      expect(problems).toEqual([]);
    }, 180_000);
  }
});

describe('the overview\'s figures and charts', () => {
  it('"Held" counts held decisions still awaiting a resolution, not those resolved', async () => {
    // One of the three held decisions was approved (beforeAll).
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await signIn(page, 'admin@a11y.example');
    expect(await page.textContent('#stat-held')).toBe(String(heldIds.length - 1));
    await context.close();
  }, 60_000);

  for (const viewport of [DESKTOP, PHONE]) {
    it(`at ${viewport.width}px the axes label distinct ticks with enough precision, and the legends show values without hovering`, async () => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await signIn(page, 'viewer-with-a-rather-long-address@a11y.example');
      for (const id of ['chart-verdicts', 'chart-latency', 'chart-spend']) {
        await page.waitForSelector(`#${id}[data-drawn="true"] canvas`);
        const legend = await page.locator(`#${id} .u-legend .u-value`).allTextContents();
        expect(legend.length, id).toBeGreaterThan(0);
        expect(legend.filter((v) => v.trim() === '' || v.includes('--')), `${id} legend: ${legend.join(' | ')}`).toEqual([]);
        const ticks = ((await page.getAttribute(`#${id}`, 'data-y-ticks')) ?? '').split(' ').filter(Boolean);
        expect(ticks.length, id).toBeGreaterThanOrEqual(2);
        expect(new Set(ticks).size, `${id}: ${ticks.join(', ')}`).toBe(ticks.length);
        // Each label says the number it stands for: consecutive ticks differ by one constant step.
        const nums = ticks.map(Number);
        const step = (nums[1] as number) - (nums[0] as number);
        expect(step, `${id}: ${ticks.join(', ')}`).toBeGreaterThan(0);
        for (let i = 1; i < nums.length; i++) expect(Math.abs((nums[i] as number) - (nums[i - 1] as number) - step), `${id}: ${ticks.join(', ')}`).toBeLessThan(step / 100);
      }
      // The figures the legends show: totals per verdict, the overall percentiles, the total spend.
      const verdictLegend = await page.locator('#chart-verdicts .u-legend .u-series').allTextContents();
      expect(verdictLegend.find((t) => t.includes('REQUIRE_APPROVAL'))).toContain(String(heldIds.length));
      expect(verdictLegend.find((t) => t.includes('DENY'))).toContain('1');
      const p50 = ((await page.textContent('#stat-p50')) ?? '').replace(' ms', '');
      expect((await page.locator('#chart-latency .u-legend .u-series').allTextContents()).join(' ')).toContain(p50);
      const spendTotal = (await page.locator('#spend tbody tr td:nth-child(2)').allTextContents()).reduce((a, b) => a + Number(b), 0);
      expect((await page.locator('#chart-spend .u-legend .u-series').allTextContents()).join(' ')).toContain(spendTotal.toFixed(4));
      const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
      expect(scrollWidth).toBeLessThanOrEqual(viewport.width);
      await page.screenshot({ path: `${ARTIFACTS}overview-${viewport.width}px.png`, fullPage: true });
      await page.goto(`${g.t.authUrl}/console/decisions?since=all`);
      await page.screenshot({ path: `${ARTIFACTS}decisions-${viewport.width}px.png`, fullPage: true });
      await context.close();
    }, 60_000);
  }
});
