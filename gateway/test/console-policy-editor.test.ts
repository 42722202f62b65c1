import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from './helpers/launch-chromium.js';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/console/', import.meta.url));
const PASSWORD = 'editor password 123';

let t: TestGateway;
let browser: Browser;
let policyId: string;
let shellId: string;
let filesId: string;

/** The policies, the policy-set version and the ledger's head: what a dry run must leave as they were. */
async function state(): Promise<unknown> {
  const verify = await call(t.url, 'GET', '/v1/events/verify', { token: t.adminToken });
  const list = await call(t.url, 'GET', '/v1/policies?enabled=all', { token: t.adminToken });
  return { head: verify.body.head, version: list.body.policy_version, policies: list.body.data };
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  t = await startTestGateway({ passwordScryptLogN: 12 });
  const admin = t.adminToken;
  for (const [email, role] of [['admin@editor.example', 'admin'], ['viewer@editor.example', 'viewer']]) {
    expect((await call(t.url, 'POST', '/admin/users', { token: admin, body: { email, name: `The ${role}`, role, password: PASSWORD } })).status).toBe(201);
  }
  const created = await call(t.url, 'POST', '/v1/policies', { token: admin, body: { name: 'no shell', type: 'tool_access', risk: 50, rules: { deny: ['shell.*'], action: 'DENY' } } });
  policyId = created.body.id;
  const decide = async (target: string) => (await call(t.url, 'POST', '/v1/decide', { token: admin, body: { agent_id: 'bot', action: { type: 'tool_call', target } } })).body.envelope.decision_id as string;
  shellId = await decide('shell.exec');
  filesId = await decide('files.read');
  for (let i = 0; i < 200; i++) {
    if ((await call(t.url, 'GET', '/v1/events?event_type=decision&limit=1', { token: admin })).body.total >= 2) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${t.authUrl}/console/login`);
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', PASSWORD);
  await Promise.all([page.waitForURL(`${t.authUrl}/console`), page.click('button[type=submit]')]);
}

async function submit(page: Page, button: string): Promise<void> {
  await Promise.all([page.waitForLoadState('load'), page.click(button)]);
}

describe('the policy editor in a real headless Chromium', () => {
  it('an admin edits a policy: a validation error is shown, a dry run shows the verdicts that would change and saves nothing, Save stores it', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page, 'admin@editor.example');
    await page.goto(`${t.authUrl}/console/policies`);
    await Promise.all([page.waitForURL(/\/console\/policies\/editor\?id=/), page.click(`a[data-edit="${policyId}"]`)]);
    expect(JSON.parse(await page.inputValue('#policy-json'))).toEqual({ name: 'no shell', risk: 50, enabled: true, rules: { deny: ['shell.*'], action: 'DENY' } });
    const before = await state();

    // Invalid: the API's validator's message, shown above the policy as typed.
    await page.fill('#policy-json', '{"rules": {"action": "DENY"}}');
    await submit(page, '#dry-run-button');
    expect(await page.textContent('#editor-error')).toContain('"allow" or "deny"');
    expect(await page.inputValue('#policy-json')).toBe('{"rules": {"action": "DENY"}}');
    await page.fill('#policy-json', '{"rules": ');
    await submit(page, '#dry-run-button');
    expect(await page.textContent('#editor-error')).toContain('not JSON');

    // Deny files.* instead of shell.*: both recorded tool calls would change verdict.
    await page.fill('#policy-json', JSON.stringify({ rules: { deny: ['files.*'], action: 'DENY' } }));
    await submit(page, '#dry-run-button');
    expect(await page.textContent('#dry-run-totals')).toContain('2 of 2 recorded actions would change verdict');
    const row = (id: string) => page.locator(`#dry-run tr[data-decision="${id}"] td`).allTextContents();
    expect((await row(shellId)).slice(4, 7)).toEqual(['DENY', 'ALLOW', 'changed']);
    expect((await row(filesId)).slice(4, 7)).toEqual(['ALLOW', 'DENY', 'changed']);
    await page.screenshot({ path: `${ARTIFACTS}policy-editor.png`, fullPage: true });
    // Saving nothing changed nothing.
    expect(await state()).toEqual(before);

    await Promise.all([page.waitForURL(/\/console\/policies#policy-/), page.click('#save-button')]);
    const saved = await call(t.url, 'GET', `/v1/policies/${policyId}`, { token: t.adminToken });
    expect(saved.body.rules).toEqual({ deny: ['files.*'], action: 'DENY' });
    // Saved as the API saves: chained as an admin action, by the signed-in admin's session.
    const audit = await call(t.url, 'GET', '/v1/events?event_type=policy.updated', { token: t.adminToken });
    expect(audit.body.events).toHaveLength(1);
    expect(audit.body.events[0].payload).toMatchObject({ action: 'policy.updated', target: policyId });
    await page.close();
  }, 60_000);

  it("an admin aims a policy with a scope in the editor; the list and the policy's page show it; taken out of the JSON, the policy applies everywhere", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page, 'admin@editor.example');
    await page.goto(`${t.authUrl}/console/policies/editor`);
    const scope = { agents: ['bot-a', 'bot-b'], doors: ['proxy'], direction: 'input' };
    await page.fill('#policy-json', JSON.stringify({ name: 'pii to providers', type: 'pii_redaction', risk: 20, rules: { action: 'REDACT' }, scope: { doors: ['cli'] } }));
    await submit(page, '#save-button');
    expect(await page.textContent('#editor-error')).toContain('must be one of proxy, mcp, decide, events');
    await page.fill('#policy-json', JSON.stringify({ name: 'pii to providers', type: 'pii_redaction', risk: 20, rules: { action: 'REDACT' }, scope }));
    await Promise.all([page.waitForURL(/\/console\/policies#policy-/), page.click('#save-button')]);
    const id = decodeURIComponent(new URL(page.url()).hash.slice('#policy-'.length));
    expect((await call(t.url, 'GET', `/v1/policies/${id}`, { token: t.adminToken })).body.scope).toEqual(scope);
    expect(await page.textContent(`tr[data-policy="${id}"] td.scope`)).toBe('agents bot-a, bot-b · doors proxy · input only');
    expect(await page.textContent(`tr[data-policy="${policyId}"] td.scope`)).toBe('everywhere');

    await Promise.all([page.waitForURL(/\/console\/policies\/editor\?id=/), page.click(`a[data-edit="${id}"]`)]);
    expect(await page.textContent('#policy-scope')).toContain('agents bot-a, bot-b · doors proxy · input only');
    expect(JSON.parse(await page.inputValue('#policy-json'))).toMatchObject({ name: 'pii to providers', scope });
    await page.screenshot({ path: `${ARTIFACTS}policy-editor-scope.png`, fullPage: true });
    await page.fill('#policy-json', JSON.stringify({ name: 'pii to providers', risk: 20, enabled: true, rules: { action: 'REDACT', entities: ['EMAIL'], target: 'both' } }));
    await Promise.all([page.waitForURL(/\/console\/policies#policy-/), page.click('#save-button')]);
    expect((await call(t.url, 'GET', `/v1/policies/${id}`, { token: t.adminToken })).body.scope).toBeUndefined();
    expect(await page.textContent(`tr[data-policy="${id}"] td.scope`)).toBe('everywhere');
    await page.close();
  }, 60_000);

  it('a viewer is not offered the editor and is refused it (403)', async () => {
    const page = await browser.newPage();
    await signIn(page, 'viewer@editor.example');
    await page.goto(`${t.authUrl}/console/policies`);
    expect(await page.locator('a[data-edit], #new-policy').count()).toBe(0);
    const refused = await page.goto(`${t.authUrl}/console/policies/editor?id=${policyId}`);
    expect(refused?.status()).toBe(403);
    await page.close();
  }, 60_000);
});
