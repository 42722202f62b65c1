import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from './helpers/launch-chromium.js';
import { call, expectEnvelope, type TestGateway } from './helpers/start-test-gateway.js';
import { signInToConsole } from './helpers/console-sign-in.js';
import { closeGatewayWithMock, startGatewayWithMock, type GatewayWithMock } from './helpers/gateway-with-mock.js';
import { entryWithPromptTokens } from './helpers/proxy-ledger.js';
import { BUILT_IN_PRICES_BRL } from '../src/proxy/pricing/price-table.js';

/** The costs page (issue 34, "what does it cost"): tokens and cost by model, agent and day, unpriced calls apart. */
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/console/', import.meta.url));
const PASSWORD = 'costs page password 1';
const RATE = 5.5;
const HOUSE = { input: 0.5, output: 1 };

let g: GatewayWithMock;
let t: TestGateway;
let browser: Browser;
const pageProblems: string[] = [];

/** The calls: [agent, model, tokens in, tokens out]; `local-llama` is in no price table. */
const CALLS = [
  ['agent-alpha', 'gpt-4o-mini', 1000, 200],
  ['agent-alpha', 'gpt-4o-mini', 3000, 400],
  ['agent-beta', 'gpt-4o-mini', 2000, 100],
  ['agent-beta', 'house-model-v2', 4000, 1000],
  ['agent-beta', 'local-llama', 5000, 700],
] as const;

const mini = BUILT_IN_PRICES_BRL['gpt-4o-mini']!;
const costOf = (model: string, input: number, output: number) =>
  model === 'gpt-4o-mini' ? (input * mini.input + output * mini.output) / 1000 : model === 'house-model-v2' ? (input * HOUSE.input + output * HOUSE.output) / 1000 : 0;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  // One model priced by the operator's file (read at start), one priced by no table.
  const priceFile = join(mkdtempSync(join(tmpdir(), 'prices-')), 'prices.json');
  writeFileSync(priceFile, JSON.stringify({ 'house-model': HOUSE }));
  g = await startGatewayWithMock({ passwordScryptLogN: 12, priceFile, usdBrlRate: String(RATE) });
  t = g.t;
  const admin = t.adminToken;
  for (const [email, role] of [['admin@costs.example', 'admin'], ['viewer@costs.example', 'viewer']]) {
    expect((await call(t.url, 'POST', '/admin/users', { token: admin, body: { email, name: `The ${role}`, role, password: PASSWORD } })).status).toBe(201);
  }
  // A decide call has no tokens: not counted.
  expect((await call(t.url, 'POST', '/v1/decide', { token: admin, body: { agent_id: 'agent-alpha', action: { type: 'chat', payload: { text: 'hello' } } } })).status).toBe(200);
  for (const [agent, model, input, output] of CALLS) {
    g.mock.next({ usage: { prompt_tokens: input, completion_tokens: output } });
    const r = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: admin, headers: { 'x-svc-agent-id': agent }, body: { model, messages: [{ role: 'user', content: 'hi' }] } });
    expect(r.status, r.text).toBe(200);
  }
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await closeGatewayWithMock(g);
});

const signIn = (email: string): Promise<Page> => signInToConsole(browser, t.authUrl, email, PASSWORD, pageProblems);

/** A table's rows as {key: {column: text}}. */
const rows = (page: Page, id: string) =>
  page.$$eval(`#${id} tbody tr[data-key]`, (trs) =>
    Object.fromEntries(trs.map((tr) => [tr.getAttribute('data-key'), Object.fromEntries([...tr.querySelectorAll('td[data-col]')].map((td) => [td.getAttribute('data-col'), td.textContent]))])),
  );

const fmt = (n: number) => n.toFixed(6);
const sum = (pick: (c: (typeof CALLS)[number]) => boolean, f: (c: (typeof CALLS)[number]) => number) => CALLS.filter(pick).reduce((a, c) => a + f(c), 0);

describe('proxied calls of a model no price table lists', () => {
  it("cost 0 and are marked `priced: false` in their ledger entry; priced calls' entries keep their shape", async () => {
    const unpriced = await entryWithPromptTokens(t.url, t.adminToken, 5000);
    expect(unpriced.payload).toMatchObject({ model: 'local-llama', cost_brl: 0, priced: false });
    const priced = await entryWithPromptTokens(t.url, t.adminToken, 4000);
    expect(priced.payload['cost_brl']).toBeCloseTo(costOf('house-model-v2', 4000, 1000), 12);
    expect(priced.payload).not.toHaveProperty('priced');
  });
});

describe('the costs page', () => {
  for (const who of ['admin', 'viewer'] as const) {
    it(`${who}: tokens and cost by model, agent and day, unpriced calls apart, in BRL and USD`, async () => {
      const page = await signIn(`${who}@costs.example`);
      await Promise.all([page.waitForURL(`${t.authUrl}/console/costs`), page.click('header nav a[href="/console/costs"]')]);
      expect(await page.textContent('h1')).toBe('Costs');
      const all = () => true;
      const brl = sum(all, (c) => costOf(c[1], c[2], c[3]));
      expect(await page.textContent('#stat-calls')).toBe('5');
      expect(await page.textContent('#stat-in')).toBe((15_000).toLocaleString('en-US'));
      expect(await page.textContent('#stat-out')).toBe((2400).toLocaleString('en-US'));
      expect(await page.textContent('#stat-brl')).toBe(fmt(brl));
      expect(await page.textContent('#stat-usd')).toBe(fmt(brl / RATE));
      expect(await page.textContent('#stat-unpriced')).toBe('1');
      expect(await page.textContent('#unpriced-note')).toContain('1 call (5,000 tokens in, 700 out) used a model no price table lists');

      const byModel = await rows(page, 'costs-by-model');
      expect(Object.keys(byModel)).toEqual(['house-model-v2', 'gpt-4o-mini', 'local-llama']);
      expect(byModel['gpt-4o-mini']).toEqual({ calls: '3', in: '6,000', out: '700', brl: fmt(costOf('gpt-4o-mini', 6000, 700)), usd: fmt(costOf('gpt-4o-mini', 6000, 700) / RATE), unpriced: '0' });
      expect(byModel['house-model-v2']).toMatchObject({ calls: '1', brl: fmt(costOf('house-model-v2', 4000, 1000)) });
      // Not priced as gpt-4o or any other model: its tokens counted, its cost shown as unpriced.
      expect(byModel['local-llama']).toEqual({ calls: '1', in: '5,000', out: '700', brl: 'unpriced', usd: 'unpriced', unpriced: '1' });

      const byAgent = await rows(page, 'costs-by-agent');
      const alpha = (c: (typeof CALLS)[number]) => c[0] === 'agent-alpha';
      const beta = (c: (typeof CALLS)[number]) => c[0] === 'agent-beta';
      expect(byAgent['agent-alpha']).toMatchObject({ calls: '2', in: '4,000', out: '600', brl: fmt(sum(alpha, (c) => costOf(c[1], c[2], c[3]))), unpriced: '0' });
      expect(byAgent['agent-beta']).toMatchObject({ calls: '3', in: '11,000', out: '1,800', brl: fmt(sum(beta, (c) => costOf(c[1], c[2], c[3]))), unpriced: '1' });

      const today = new Date().toISOString().slice(0, 10);
      const byDay = await rows(page, 'costs-by-day');
      expect(Object.keys(byDay)).toEqual([today]);
      expect(byDay[today]).toMatchObject({ calls: '5', brl: fmt(brl), unpriced: '1' });
      await page.screenshot({ path: `${ARTIFACTS}costs-${who}.png`, fullPage: true });

      // A range without the calls: none counted.
      await page.fill('input[name=from]', '2020-01-01');
      await page.fill('input[name=to]', '2020-01-31');
      await Promise.all([page.waitForURL(/\/console\/costs\?/), page.click('form.filters button[type=submit]')]);
      expect(await page.textContent('#stat-calls')).toBe('0');
      expect(await page.textContent('#costs-by-model tbody')).toContain('No proxied calls in this range.');
      await page.context().close();
    });
  }

  it("an unpriced call's decision page says unpriced, not a cost of 0", async () => {
    const page = await signIn('viewer@costs.example');
    // The decision of the call that reported these input tokens, by its ledger entry.
    const idOf = async (promptTokens: number) => ((await entryWithPromptTokens(t.url, t.adminToken, promptTokens)) as unknown as { metadata: { decision_id: string } }).metadata.decision_id;
    await page.goto(`${t.authUrl}/console/decisions/${await idOf(5000)}`);
    expect(await page.textContent('#cost')).toBe('unpriced (the model is in no price table)');
    await page.goto(`${t.authUrl}/console/decisions/${await idOf(4000)}`);
    expect(await page.textContent('#cost')).toBe(fmt(costOf('house-model-v2', 4000, 1000)));
    await page.context().close();
  });

  it('a range it cannot mean is a 400 and shows nothing', async () => {
    const page = await signIn('viewer@costs.example');
    for (const q of ['from=yesterday', 'from=2026-02-10&to=2026-02-01', 'to=2026-13-45']) {
      const r = await page.request.get(`${t.authUrl}/console/costs?${q}`);
      expect(r.status(), q).toBe(400);
      expectEnvelope({ status: r.status(), body: await r.json(), text: '', headers: {} }, 400, 'invalid_request');
    }
    await page.context().close();
    expect(pageProblems).toEqual([]);
  });
});
