import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from './helpers/launch-chromium.js';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { signInToConsole } from './helpers/console-sign-in.js';

/** The audit trail page (issue 34, "who changed what"), in Chromium, as an admin and as a viewer. */
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/console/', import.meta.url));
const PASSWORD = 'audit page password 1';
// A zone without daylight saving time (since 2019): UTC-3 all year, so the test can write its local times itself.
const ZONE = 'America/Sao_Paulo';
const ZONE_OFFSET_MS = -3 * 3_600_000;

let t: TestGateway;
let browser: Browser;
const userIds: Record<string, string> = {};
let policyId = '';
let heldId = '';
const pageProblems: string[] = [];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  t = await startTestGateway({ passwordScryptLogN: 12 });
  const admin = t.adminToken;
  for (const [email, role] of [['admin@audit.example', 'admin'], ['viewer@audit.example', 'viewer']] as const) {
    const r = await call(t.url, 'POST', '/admin/users', { token: admin, body: { email, name: `The ${role}`, role, password: PASSWORD } });
    expect(r.status).toBe(201);
    userIds[role] = r.body.id;
  }
  const created = await call(t.url, 'POST', '/v1/policies', { token: admin, body: { name: 'hold payments', type: 'content_filter', risk: 40, rules: { patterns: ['wire money'], action: 'REQUIRE_APPROVAL' } } });
  policyId = created.body.id;
  // Enough changes for a second page (50 a page).
  for (let i = 0; i < 52; i++) expect((await call(t.url, 'PUT', `/v1/policies/${policyId}`, { token: admin, body: { risk: 41 + (i % 50) } })).status).toBe(200);
  heldId = (await call(t.url, 'POST', '/v1/decide', { token: admin, body: { agent_id: 'payer', action: { type: 'chat', payload: { text: 'wire money to X' } } } })).body.envelope.decision_id;
  expect((await call(t.url, 'POST', `/admin/decisions/${heldId}/resolve`, { token: admin, body: { resolution: 'REJECTED' } })).status).toBe(200);
  expect((await call(t.authUrl, 'POST', '/token', { token: admin, body: { name: 'ci', role: 'viewer' } })).status).toBe(200);
  // Down and back up (the tests' tenant is on enterprise, so later calls are not throttled): two plan changes.
  for (const plan of ['professional', 'enterprise']) expect((await call(t.url, 'PUT', '/admin/tenants/default/plan', { token: admin, body: { plan } })).status).toBe(200);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const signIn = (email: string): Promise<Page> => signInToConsole(browser, t.authUrl, email, PASSWORD, pageProblems, { timezoneId: ZONE, locale: 'en-GB' });

const actions = (page: Page) => page.$$eval('#audit tbody tr[data-action]', (rows) => rows.map((r) => r.getAttribute('data-action')));
const seqs = (page: Page) => page.$$eval('#audit tbody tr[data-seq]', (rows) => rows.map((r) => Number(r.getAttribute('data-seq'))));
/** A UTC instant as a datetime-local value in ZONE. */
const local = (ms: number) => new Date(ms + ZONE_OFFSET_MS).toISOString().slice(0, 16);

async function filter(page: Page, fields: { action?: string; actor?: string; from?: string; to?: string }): Promise<void> {
  await page.goto(`${t.authUrl}/console/audit`);
  if (fields.action !== undefined) await page.selectOption('select[name=action]', fields.action);
  if (fields.actor !== undefined) await page.fill('input[name=actor]', fields.actor);
  if (fields.from !== undefined) await page.fill('input[name=from]', fields.from);
  if (fields.to !== undefined) await page.fill('input[name=to]', fields.to);
  await Promise.all([page.waitForURL(/\/console\/audit\?/), page.click('form.filters button[type=submit]')]);
}

describe('the audit trail page', () => {
  for (const who of ['admin', 'viewer'] as const) {
    it(`${who}: lists every admin action newest first, in the viewer's time zone, with filters and pages`, async () => {
      const page = await signIn(`${who}@audit.example`);
      await Promise.all([page.waitForURL(`${t.authUrl}/console/audit`), page.click('header nav a[href="/console/audit"]')]);
      expect(await page.textContent('h1')).toBe('Audit trail');
      const first = await actions(page);
      expect(first).toHaveLength(50);
      // Newest first: the plan changes, the token, the resolution, then the policy's updates.
      expect(first.slice(0, 5)).toEqual(['tenant.plan_changed', 'tenant.plan_changed', 'token.created', 'decision.resolved', 'policy.updated']);
      const s = await seqs(page);
      expect([...s].sort((a, b) => b - a)).toEqual(s);
      // Times in the viewer's zone (the <time> keeps the UTC instant), and the zone named.
      const time = page.locator('#audit tbody tr:first-child time');
      const iso = (await time.getAttribute('datetime'))!;
      const shown = (await time.textContent())!;
      expect(shown).toContain('GMT-3');
      expect(shown).toContain(local(Date.parse(iso)).slice(11, 16));
      expect(await page.textContent('[data-time-zone]')).toBe(ZONE);
      // The resolution links to its decision; the actor of the API's changes is the bootstrap token.
      expect(await page.getAttribute('tr[data-action="decision.resolved"] a', 'href')).toBe(`/console/decisions/${heldId}`);
      await page.screenshot({ path: `${ARTIFACTS}audit-${who}.png` });

      // The next page: the rest, older, none repeated.
      await Promise.all([page.waitForURL(/before=/), page.click('#older')]);
      const rest = await actions(page);
      const s2 = await seqs(page);
      expect(Math.max(...s2)).toBeLessThan(Math.min(...s));
      expect(rest.slice(-3)).toEqual(['policy.created', 'user.created', 'user.created']);
      expect(first.length + rest.length).toBe(2 + 1 + 52 + 1 + 1 + 2);
      expect(await page.$('#older')).toBeNull();

      // By action, by actor, by time (typed in the viewer's zone).
      await filter(page, { action: 'user.created' });
      expect(await actions(page)).toEqual(['user.created', 'user.created']);
      expect(await page.$$eval('#audit tbody tr td:nth-child(4)', (c) => c.map((x) => x.textContent))).toEqual([userIds['viewer'], userIds['admin']]);
      const bootstrapId = t.gw.deps.tokens.findByToken(t.adminToken)!.id;
      await filter(page, { actor: bootstrapId, action: 'token.created' });
      expect(await actions(page)).toEqual(['token.created']);
      await filter(page, { actor: 'nobody-at-all' });
      expect(await actions(page)).toEqual([]);
      expect(await page.textContent('#audit tbody')).toContain('No admin actions match.');
      const soon = Date.now() + 120_000;
      // Two minutes from now in São Paulo: nothing from then on, everything up to then (read as UTC it would be
      // three hours earlier, and the two answers would swap).
      await filter(page, { from: local(soon) });
      expect(await actions(page)).toEqual([]);
      await filter(page, { to: local(soon), action: 'tenant.plan_changed' });
      expect(await actions(page)).toEqual(['tenant.plan_changed', 'tenant.plan_changed']);
      // Read-only: no form here changes anything (only the filters and signing out).
      const forms = await page.$$eval('main form', (f) => f.map((x) => x.getAttribute('method')));
      expect(forms).toEqual(['get']);
      await page.context().close();
    });
  }

  it("an admin's console change shows under the admin's user; the chain still verifies", async () => {
    const page = await signIn('admin@audit.example');
    await page.goto(`${t.authUrl}/console/policies`);
    await Promise.all([page.waitForURL(`${t.authUrl}/console/policies`), page.click(`form[action="/console/policies/${policyId}/toggle"] button`)]);
    await filter(page, { actor: userIds['admin']! });
    expect(await actions(page)).toEqual(['policy.updated']);
    expect(await page.textContent('#audit tbody tr td:nth-child(3)')).toContain(userIds['admin']);
    await page.context().close();
    expect((await call(t.url, 'GET', '/v1/events/verify', { token: t.adminToken })).body.ok).toBe(true);
    expect(pageProblems).toEqual([]);
  });

  it('400 for a filter it cannot mean; a signed-out visitor is sent to sign in', async () => {
    const page = await signIn('viewer@audit.example');
    const cookies = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    for (const q of ['action=decision', 'from=yesterday', 'tzo=abc', 'before=0']) {
      expectEnvelope(await call(t.authUrl, 'GET', `/console/audit?${q}`, { headers: { cookie: cookies } }), 400, 'invalid_request');
    }
    await page.context().close();
    const anon = await call(t.authUrl, 'GET', '/console/audit');
    expect(anon.status).toBe(303);
    expect(anon.headers['location']).toMatch(/\/console\/login/);
  });
});
