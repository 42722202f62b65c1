import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from './helpers/launch-chromium.js';
import { call, expectEnvelope, type TestGateway } from './helpers/start-test-gateway.js';
import { signInToConsole } from './helpers/console-sign-in.js';
import { closeGatewayWithMock, startGatewayWithMock, type GatewayWithMock } from './helpers/gateway-with-mock.js';
import { LocalTsa } from './helpers/ledger/local-tsa.js';
import { checkpointSignatureValid, rootFromPath, shownCheckpoint } from './helpers/independent-proof.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/console/', import.meta.url));
const PASSWORD = 'decision page password 1';

let g: GatewayWithMock;
let t: TestGateway;
let browser: Browser;
let tsa: LocalTsa;
const ids = { deny: '', proxied: '', held: '', orphan: '' };
const policyIds = { secrets: '', pii: '', temporary: '' };
let resolution: { resolved_by: string; resolved_at: string; note: string };
const pageProblems: string[] = [];


beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  // A checkpoint after every entry, so the decisions' entries are covered by one before the pages are read; each
  // time-stamped by a TSA (the test tenant is on the enterprise plan), so the page shows the token's status.
  tsa = await LocalTsa.start();
  g = await startGatewayWithMock({ passwordScryptLogN: 12, checkpointEvery: 1, anchorTsaUrl: tsa.url, anchorTsaCert: tsa.certPath, anchorRetryBaseMs: 10, anchorRetryMaxMs: 50 });
  t = g.t;
  const admin = t.adminToken;
  for (const [email, role] of [['admin@decision.example', 'admin'], ['viewer@decision.example', 'viewer']]) {
    expect((await call(t.url, 'POST', '/admin/users', { token: admin, body: { email, name: `The ${role}`, role, password: PASSWORD } })).status).toBe(201);
  }
  const policy = async (body: unknown) => (await call(t.url, 'POST', '/v1/policies', { token: admin, body })).body.id as string;
  policyIds.secrets = await policy({ name: 'no secrets', type: 'content_filter', risk: 90, rules: { patterns: ['secret plans'], action: 'DENY' } });
  policyIds.pii = await policy({ name: 'mask personal data', type: 'pii_redaction', risk: 10, rules: { action: 'REDACT' } });
  policyIds.temporary = await policy({ name: 'temporary block', type: 'content_filter', risk: 70, rules: { patterns: ['forbidden fruit'], action: 'DENY' } });
  await policy({ name: 'hold payments', type: 'content_filter', risk: 40, rules: { patterns: ['wire money'], action: 'REQUIRE_APPROVAL' } });
  const decide = async (text: string, agent: string) => (await call(t.url, 'POST', '/v1/decide', { token: admin, body: { agent_id: agent, action: { type: 'chat', payload: { text } } } })).body.envelope.decision_id as string;
  ids.deny = await decide('share the secret plans', 'agent-beta');
  ids.held = await decide('wire money to X', 'agent-alpha');
  ids.orphan = await decide('the forbidden fruit', 'agent-beta');
  // The policy that decided `orphan` is deleted afterwards: its page names it by id.
  expect((await call(t.url, 'DELETE', `/v1/policies/${policyIds.temporary}`, { token: admin })).status).toBe(204);
  // A proxied call whose prompt holds two e-mail addresses and a phone number: redacted before the upstream sees them.
  g.mock.next({ usage: { prompt_tokens: 1000, completion_tokens: 500 } });
  const proxied = await call(t.url, 'POST', '/v1/proxy/chat/completions', {
    token: admin,
    headers: { 'x-svc-agent-id': 'agent-proxy' },
    body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'write to ana@example.com and bob@example.org' }] },
  });
  expect(proxied.status, proxied.text).toBe(200);
  ids.proxied = proxied.headers['x-svc-trace-id'] as string;
  expect(ids.proxied).toMatch(/^dec_/);
  const resolved = await call(t.url, 'POST', `/admin/decisions/${ids.held}/resolve`, { token: admin, body: { resolution: 'REJECTED', note: 'not this week' } });
  expect(resolved.status, resolved.text).toBe(200);
  resolution = resolved.body.resolution;
  // Every entry chained and covered by a signed checkpoint before the pages are read.
  // The chain's size: its newest entry's seq.
  const size = Number((await call(t.url, 'GET', '/v1/events?limit=1&order=desc', { token: admin })).body.events[0].seq);
  expect(size).toBeGreaterThan(0);
  for (let i = 0; i < 200; i++) {
    const latest = await call(t.url, 'GET', '/v1/events/checkpoints/latest', { token: admin });
    if (latest.status === 200 && latest.body.checkpoint.tree_size >= size && latest.body.checkpoint.anchor?.status === 'anchored') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await closeGatewayWithMock(g);
  await tsa?.close();
});

const signIn = (email: string): Promise<Page> => signInToConsole(browser, t.authUrl, email, PASSWORD, pageProblems);

/** Opens a decision's page from the decisions list, as a person would. */
async function openFromList(page: Page, id: string): Promise<void> {
  await page.goto(`${t.authUrl}/console/decisions?since=all`);
  await Promise.all([page.waitForURL(`${t.authUrl}/console/decisions/${id}`), page.click(`a[data-detail="${id}"]`)]);
}

const text = async (page: Page, selector: string): Promise<string> => ((await page.textContent(selector)) ?? '').trim();

/** Reads the page's proof and checkpoint and checks them with the verifier above and the ledger's public key from the API. */
async function verifyShownProof(page: Page): Promise<boolean> {
  const seq = Number(await text(page, '#entry-seq'));
  const entryHash = await text(page, '#proof-entry-hash');
  // The entry the page shows is the ledger's entry of this seq (read through the API).
  const entry = await call(t.url, 'GET', `/v1/events/${seq}`, { token: t.adminToken });
  expect(entry.body.hash).toBe(entryHash);
  expect(await text(page, '#entry-hash')).toBe(entryHash);
  expect(await text(page, '#entry-prev-hash')).toBe(entry.body.prev_hash);
  const path = (await page.locator('#proof-path li').allTextContents()).map((s) => s.trim());
  const index = Number(await text(page, '#proof-leaf-index'));
  const size = Number(await text(page, '#proof-tree-size'));
  expect(index).toBe(seq - 1);
  const cp = await shownCheckpoint(page, entry.body.tenant_id as string);
  expect(size).toBe(cp.tree_size);
  expect(rootFromPath(entryHash, index, size, path)).toBe(cp.root_hash);
  // The verifier can fail: a changed path step or a wrong leaf leads elsewhere.
  if (path.length > 0) expect(rootFromPath(entryHash, index, size, [path[0]!.replace(/^./, (c) => (c === '0' ? '1' : '0')), ...path.slice(1)])).not.toBe(cp.root_hash);
  expect(rootFromPath('00'.repeat(32), index, size, path)).not.toBe(cp.root_hash);
  const key = (await call(t.url, 'GET', '/v1/events/checkpoints/latest', { token: t.adminToken })).body.public_key as { key_id: string; raw: string };
  expect(key.key_id).toBe(cp.key_id);
  expect(await text(page, '#public-key')).toBe(key.raw);
  expect(checkpointSignatureValid(cp, key.raw)).toBe(true);
  expect(checkpointSignatureValid({ ...cp, root_hash: '00'.repeat(32) }, key.raw)).toBe(false);
  // The checkpoint's RFC 3161 token, as the API lists it: the page names its time once the TSA answered.
  const listed = (await call(t.url, 'GET', `/v1/events/checkpoints?from_size=${cp.tree_size}&limit=1`, { token: t.adminToken })).body.data[0];
  expect(listed).toMatchObject({ tree_size: cp.tree_size, root_hash: cp.root_hash, signature: cp.signature });
  const anchor = await text(page, '#checkpoint-anchor');
  if (listed.anchor?.status === 'anchored') expect(anchor).toBe(`time-stamped by the TSA at ${listed.anchor.gen_time}`);
  else expect(anchor).toBe('awaiting the time-stamp authority');
  return listed.anchor?.status === 'anchored';
}

describe('the decision page in a real headless Chromium', () => {
  for (const who of ['viewer', 'admin'] as const) {
    it(`${who}: shows why each decision was judged so, with a proof that verifies independently`, async () => {
      const page = await signIn(`${who}@decision.example`);

      await openFromList(page, ids.deny);
      expect(await text(page, '#verdict')).toBe('DENY');
      expect(await text(page, '#rule')).toBe('no secrets');
      expect(await page.getAttribute('#rule a', 'href')).toBe(`/console/policies#policy-${policyIds.secrets}`);
      expect(await text(page, `#rules tr[data-triggered="${policyIds.secrets}"] td:first-child`)).toBe('no secrets');
      expect(await text(page, '#event-type')).toBe('decision');
      expect(await text(page, '#agent')).toBe('agent-beta');
      // Its checkpoint was time-stamped before the pages were read; a newer one (entries chained since) may still wait
      // for its token, so the page is read again until it shows one that has it.
      for (let i = 0; !(await verifyShownProof(page)); i++) {
        expect(i).toBeLessThan(100);
        await new Promise((r) => setTimeout(r, 50));
        await page.reload();
      }
      await page.screenshot({ path: `${ARTIFACTS}decision-deny-${who}.png`, fullPage: true });
      // The rule's link leads to the policy's row.
      await Promise.all([page.waitForURL(/\/console\/policies#policy-/), page.click('#rule a')]);
      expect(await page.locator(`#policy-${policyIds.secrets}`).count()).toBe(1);

      await openFromList(page, ids.proxied);
      expect(await text(page, '#verdict')).toBe('ALLOW');
      expect(await text(page, `#rules tr[data-triggered="${policyIds.pii}"] td:first-child`)).toBe('mask personal data');
      expect(await text(page, '#redactions tr[data-redaction="input"][data-entity="EMAIL"] .count')).toBe('2');
      const main = await text(page, 'main');
      expect(main).not.toContain('ana@example.com');
      expect(main).not.toContain('bob@example.org');
      expect(await text(page, '#model')).toBe('gpt-4o');
      expect(await text(page, '#outcome')).toBe('completed');
      expect(await text(page, '#upstream-status')).toBe('200');
      expect(await text(page, '#usage')).toBe('1000 / 500 / 1500');
      expect(Number(await text(page, '#cost'))).toBeGreaterThan(0);
      expect(await text(page, '#latency')).toMatch(/^\d+\.\d{3} ms$/);
      // Latency by stage: every stage shown, the two governance parts adding up to the whole (to the rounding of µs),
      // evaluation and redaction within the request checks, and the provider's time apart from governance.
      const stage = async (name: string) => {
        const shown = await text(page, `#latency-by-stage tr[data-stage="${name}"] .count`);
        expect(shown).toMatch(/^\d+\.\d{3} ms$/);
        return Number(shown.replace(' ms', ''));
      };
      const [request, policies, redaction, upstream, answer, governance] = [await stage('request'), await stage('policies'), await stage('redaction'), await stage('upstream'), await stage('answer'), await stage('governance')];
      expect(Math.abs(request + answer - governance)).toBeLessThanOrEqual(0.002);
      expect(policies + redaction).toBeLessThanOrEqual(request + 0.002);
      expect(redaction).toBeGreaterThan(0);
      expect(upstream).toBeGreaterThan(0);
      expect(await text(page, '#latency')).toBe(`${governance.toFixed(3)} ms`);
      await verifyShownProof(page);
      await page.screenshot({ path: `${ARTIFACTS}decision-proxied-${who}.png`, fullPage: true });

      await openFromList(page, ids.held);
      expect(await text(page, '#verdict')).toBe('REQUIRE_APPROVAL');
      expect(await text(page, '#resolution-status')).toBe('REJECTED');
      expect(await text(page, '#resolution-by')).toBe(resolution.resolved_by);
      expect(await text(page, '#resolution-at')).toBe(resolution.resolved_at);
      expect(await text(page, '#resolution-note')).toBe('not this week');
      await verifyShownProof(page);

      await openFromList(page, ids.orphan);
      expect(await page.getAttribute('#rule [data-policy-deleted]', 'data-policy-deleted')).toBe(policyIds.temporary);
      expect(await text(page, '#rule')).toContain(policyIds.temporary);
      await page.context().close();
    }, 60_000);
  }

  it('axe-core finds no serious or critical violation at desktop and at 390 px, and the page fits the screen', async () => {
    const page = await signIn('viewer@decision.example');
    const problems: string[] = [];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      for (const id of [ids.proxied, ids.held, ids.orphan]) {
        await page.goto(`${t.authUrl}/console/decisions/${id}`);
        const { violations } = await new AxeBuilder({ page }).analyze();
        for (const v of violations) if (v.impact === 'serious' || v.impact === 'critical') problems.push(`${id} at ${width}px: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
        const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
        if (scrollWidth > width) problems.push(`${id} at ${width}px: the page is ${scrollWidth}px wide`);
      }
    }
    await page.screenshot({ path: `${ARTIFACTS}decision-proxied-390px.png`, fullPage: true });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('the pages broke nothing under the CSP', () => {
    expect(pageProblems).toEqual([]);
  });
});

describe('the decision page without a browser', () => {
  it('an unknown decision is 404; no session leads to the sign-in page', async () => {
    const login = await call(t.authUrl, 'POST', '/login', { body: { email: 'viewer@decision.example', password: PASSWORD } });
    const cookie = `aduana_session=${login.body.session_token}`;
    expectEnvelope(await call(t.authUrl, 'GET', '/console/decisions/dec_00000000000000000000000000', { headers: { cookie } }), 404, 'not_found');
    const anonymous = await call(t.authUrl, 'GET', `/console/decisions/${ids.deny}`);
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.location).toBe('/console/login');
  });
});
