import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from './helpers/launch-chromium.js';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { signInToConsole } from './helpers/console-sign-in.js';
import { checkpointSignatureValid, rootFromPath, shownCheckpoint } from './helpers/independent-proof.js';

/** Screenshots for docs/console.md. */
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/console/', import.meta.url));
mkdirSync(ARTIFACTS, { recursive: true });

const PASSWORD = 'lists page password 1';
const ZONE = 'America/Sao_Paulo';
/** São Paulo has kept UTC-3 all year since 2019. */
const ZONE_OFFSET_MS = -3 * 3_600_000;

interface Seeded {
  id: string;
  trace: string;
  agent: string;
  verdict: string;
}

let t: TestGateway;
let browser: Browser;
/** Newest first, as the list shows them. */
let seeded: Seeded[] = [];
/** The decisions of the first batch are before `mid`, those of the second after it (a second apart at least). */
let mid = 0;
let firstBatch = new Set<string>();
const policyIds = { secrets: '', hold: '' };
let otherTenantAdmin = '';
const pageProblems: string[] = [];

const AGENTS = ['agent-a', 'agent-b', '=cmd'];
const TEXTS = ['hello there', 'share the secret plans', 'wire money to X', 'good morning'];

beforeAll(async () => {
  // A checkpoint after every entry, so entries are covered by one before the pages are read.
  t = await startTestGateway({ passwordScryptLogN: 12, checkpointEvery: 1 });
  const admin = t.adminToken;
  for (const [email, role] of [['admin@lists.example', 'admin'], ['viewer@lists.example', 'viewer']]) {
    expect((await call(t.url, 'POST', '/admin/users', { token: admin, body: { email, name: `The ${role}`, role, password: PASSWORD } })).status).toBe(201);
  }
  const policy = async (body: unknown) => (await call(t.url, 'POST', '/v1/policies', { token: admin, body })).body.id as string;
  policyIds.secrets = await policy({ name: 'no secrets', type: 'content_filter', risk: 90, rules: { patterns: ['secret plans'], action: 'DENY' } });
  policyIds.hold = await policy({ name: 'hold payments', type: 'content_filter', risk: 40, rules: { patterns: ['wire money'], action: 'REQUIRE_APPROVAL' } });
  const made: Seeded[] = [];
  const decide = async (i: number) => {
    const agent = AGENTS[i % AGENTS.length]!;
    const r = await call(t.url, 'POST', '/v1/decide', { token: admin, body: { agent_id: agent, action: { type: 'chat', payload: { text: TEXTS[i % TEXTS.length] } } } });
    expect(r.status, r.text).toBe(200);
    made.push({ id: r.body.envelope.decision_id, trace: r.body.envelope.trace_id, agent, verdict: r.body.envelope.execution_status });
  };
  for (let i = 0; i < 30; i++) await decide(i);
  firstBatch = new Set(made.map((d) => d.id));
  await new Promise((r) => setTimeout(r, 1100));
  mid = Date.now();
  await new Promise((r) => setTimeout(r, 1100));
  for (let i = 30; i < 57; i++) await decide(i);
  seeded = made.reverse();
  // Another tenant, with a user and a decision of its own.
  otherTenantAdmin = (await t.tenant('lists-other')).admin;
  expect((await call(t.url, 'POST', '/admin/users', { token: otherTenantAdmin, body: { email: 'other@lists.example', name: 'Other', role: 'viewer', password: PASSWORD } })).status).toBe(201);
  expect((await call(t.url, 'POST', '/v1/decide', { token: otherTenantAdmin, body: { agent_id: 'agent-other', action: { type: 'chat', payload: { text: 'hi' } } } })).status).toBe(200);
  // Every entry chained and covered by a signed checkpoint before the pages are read.
  const size = await headOf(admin);
  expect(size).toBeGreaterThan(57);
  for (let i = 0; i < 200; i++) {
    const latest = await call(t.url, 'GET', '/v1/events/checkpoints/latest', { token: admin });
    if (latest.status === 200 && latest.body.checkpoint.tree_size >= size) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const signIn = (email: string): Promise<Page> => signInToConsole(browser, t.authUrl, email, PASSWORD, pageProblems, { timezoneId: ZONE, acceptDownloads: true });

const shownIds = (page: Page): Promise<string[]> => page.locator('#decisions tbody tr[data-decision]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-decision') ?? ''));

/** Every decision the list shows from `path` on, following its Older links; the ids of each page in order. */
async function walk(page: Page, path: string): Promise<string[][]> {
  await page.goto(`${t.authUrl}${path}`);
  const pages: string[][] = [];
  for (;;) {
    pages.push(await shownIds(page));
    const older = page.locator('#older');
    if ((await older.count()) === 0) return pages;
    await Promise.all([page.waitForLoadState('load'), older.click()]);
    await page.waitForSelector('#decisions');
  }
}

/** A time as a datetime-local field in São Paulo shows it, to the second. */
const local = (ms: number): string => new Date(ms + ZONE_OFFSET_MS).toISOString().slice(0, 19);

/** The seq of the tenant's newest entry (its chain's size). */
const headOf = async (token: string): Promise<number> => {
  const r = await call(t.url, 'GET', '/v1/events?limit=1&order=desc', { token });
  expect(r.status, r.text).toBe(200);
  return (r.body.events[0]?.seq as number | undefined) ?? 0;
};

const cookieOf = async (page: Page): Promise<string> => (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');

describe('working the lists in a real headless Chromium', () => {
  it('admin: cursor pages visit every decision exactly once, newest first, and keep the filters', async () => {
    const page = await signIn('admin@lists.example');
    const pages = await walk(page, '/console/decisions?since=all&limit=5');
    expect(pages.length).toBe(Math.ceil(seeded.length / 5));
    for (const p of pages) expect(p.length).toBeLessThanOrEqual(5);
    expect(pages.flat()).toEqual(seeded.map((d) => d.id));
    // The Older link carries the filters: every page of ALLOW holds only ALLOW, and together all of them.
    const allowed = await walk(page, '/console/decisions?since=all&limit=4&verdict=ALLOW');
    expect(allowed.length).toBeGreaterThan(2);
    expect(allowed.flat()).toEqual(seeded.filter((d) => d.verdict === 'ALLOW').map((d) => d.id));
    expect(new URL(page.url()).searchParams.get('verdict')).toBe('ALLOW');
    expect(pageProblems).toEqual([]);
  });

  it('viewer: the filters narrow the list (verdict, agent, rule by name or id, time range in the viewer\'s zone)', async () => {
    const page = await signIn('viewer@lists.example');
    await page.goto(`${t.authUrl}/console/decisions?since=all&limit=200`);
    expect(await shownIds(page)).toEqual(seeded.map((d) => d.id));
    // Times are shown in the viewer's zone, and the page names it.
    expect(await page.textContent('[data-time-zone]')).toBe(ZONE);
    expect(await page.getAttribute('#decisions tbody time', 'title')).toMatch(/ \(UTC\)$/);

    await page.selectOption('select[name=verdict]', 'DENY');
    await Promise.all([page.waitForURL(/verdict=DENY/), page.click('form.filters button[type=submit]')]);
    const denied = seeded.filter((d) => d.verdict === 'DENY').map((d) => d.id);
    expect(denied.length).toBeGreaterThan(0);
    expect(await shownIds(page)).toEqual(denied);

    await page.selectOption('select[name=verdict]', '');
    await page.fill('input[name=agent]', 'agent-b');
    await Promise.all([page.waitForURL(/agent=agent-b/), page.click('form.filters button[type=submit]')]);
    expect(await shownIds(page)).toEqual(seeded.filter((d) => d.agent === 'agent-b').map((d) => d.id));

    // A rule by its policy's name, and by its id: the decisions it decided.
    await page.fill('input[name=agent]', '');
    await page.fill('input[name=rule]', 'hold payments');
    await Promise.all([page.waitForURL(/rule=hold/), page.click('form.filters button[type=submit]')]);
    const held = seeded.filter((d) => d.verdict === 'REQUIRE_APPROVAL').map((d) => d.id);
    expect(held.length).toBeGreaterThan(0);
    expect(await shownIds(page)).toEqual(held);
    await page.goto(`${t.authUrl}/console/decisions?since=all&limit=200&rule=${policyIds.secrets}`);
    expect(await shownIds(page)).toEqual(denied);
    // The deciding rule by its policy's name, linked to the policy.
    const ruleLinks = page.locator(`#decisions a[data-rule="${policyIds.secrets}"]`);
    expect(await ruleLinks.count()).toBe(denied.length);
    expect(((await ruleLinks.first().textContent()) ?? '').trim()).toBe('no secrets');
    expect(await ruleLinks.first().getAttribute('href')).toBe(`/console/policies#policy-${policyIds.secrets}`);
    await page.screenshot({ path: `${ARTIFACTS}decisions-by-rule.png`, fullPage: true });

    // From / to typed in São Paulo's time: the form tells the server the zone.
    await page.goto(`${t.authUrl}/console/decisions?since=all&limit=200`);
    await page.fill('input[name=from]', local(mid));
    await Promise.all([page.waitForURL(/[?&]from=[^&]/), page.click('form.filters button[type=submit]')]);
    expect(new URL(page.url()).searchParams.get('tzo')).toBe('180');
    expect(await shownIds(page)).toEqual(seeded.filter((d) => !firstBatch.has(d.id)).map((d) => d.id));
    await page.fill('input[name=from]', '');
    await page.fill('input[name=to]', local(mid));
    // The page before already had an empty `to=`: wait for the one that carries the time.
    await Promise.all([page.waitForURL(/[?&]to=[^&]/), page.click('form.filters button[type=submit]')]);
    expect(await shownIds(page)).toEqual(seeded.filter((d) => firstBatch.has(d.id)).map((d) => d.id));
    expect(pageProblems).toEqual([]);
  });

  it('the search box finds a decision by its id or trace id, and agents by the start of their id', async () => {
    const page = await signIn('viewer@lists.example');
    const target = seeded[17]!;
    await page.goto(`${t.authUrl}/console/decisions?since=all`);
    await page.fill('input[name=q]', target.id);
    await Promise.all([page.waitForURL(/q=dec_/), page.click('form.filters button[type=submit]')]);
    expect(await shownIds(page)).toEqual([target.id]);
    await page.goto(`${t.authUrl}/console/decisions?since=all&q=${target.trace}`);
    expect(await shownIds(page)).toEqual([target.id]);
    await page.goto(`${t.authUrl}/console/decisions?since=all&limit=200&q=agent-`);
    expect(await shownIds(page)).toEqual(seeded.filter((d) => d.agent.startsWith('agent-')).map((d) => d.id));
    // Another tenant's decision is not found by its id.
    const other = await signIn('other@lists.example');
    await other.goto(`${t.authUrl}/console/decisions?since=all&q=${target.id}`);
    expect(await shownIds(other)).toEqual([]);
  });

  it('viewer: the CSV link downloads the filtered decisions, quoted, with formula-like cells neutralised', async () => {
    const page = await signIn('viewer@lists.example');
    await page.goto(`${t.authUrl}/console/decisions?since=all&verdict=ALLOW`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#csv')]);
    const text = readFileSync((await download.path())!, 'utf8');
    const lines = text.split('\r\n');
    expect(lines.at(-1)).toBe('');
    expect(lines[0]).toBe('decision_id,created_at,agent_id,verdict,rule,risk_score,event_type,model,prompt_tokens,completion_tokens,cost_brl,latency_ms,resolution,trace_id');
    const rows = lines.slice(1, -1).map((l) => l.split(','));
    const allowed = seeded.filter((d) => d.verdict === 'ALLOW');
    expect(rows.map((r) => r[0])).toEqual(allowed.map((d) => d.id));
    // An agent id a spreadsheet would run as a formula is prefixed with a quote.
    expect(rows.filter((r) => r[2] === "'=cmd").length).toBe(allowed.filter((d) => d.agent === '=cmd').length);
    expect(rows.some((r) => r[2] === '=cmd')).toBe(false);
    for (const r of rows) {
      expect(r[1]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(r[3]).toBe('ALLOW');
    }
    const direct = await call(t.authUrl, 'GET', '/console/decisions.csv?since=all&verdict=ALLOW', { headers: { cookie: await cookieOf(page) } });
    expect(direct.status).toBe(200);
    expect(direct.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(direct.headers['content-disposition']).toMatch(/^attachment; filename="decisions-.*\.csv"$/);
    expect(direct.headers['x-aduana-truncated']).toBe('false');
    expect(direct.text).toBe(text);
  });

  it('400 invalid_request for a list or CSV query it cannot mean; signed out, the CSV sends to sign in', async () => {
    const page = await signIn('viewer@lists.example');
    const cookie = await cookieOf(page);
    for (const q of ['verdict=MAYBE', 'since=2d', 'limit=0', 'limit=201', 'limit=ten', 'cursor=nonsense', 'from=yesterday', 'to=2026-13-01T00:00', 'tzo=5000']) {
      expectEnvelope(await call(t.authUrl, 'GET', `/console/decisions?${q}`, { headers: { cookie } }), 400, 'invalid_request');
      expectEnvelope(await call(t.authUrl, 'GET', `/console/decisions.csv?${q}`, { headers: { cookie } }), 400, 'invalid_request');
    }
    for (const path of ['/console/ledger?cursor=%3Cx%3E', '/console/ledger/checkpoints?from=-1']) expectEnvelope(await call(t.authUrl, 'GET', path, { headers: { cookie } }), 400, 'invalid_request');
    const out = await call(t.authUrl, 'GET', '/console/decisions.csv');
    expect(out.status).toBe(303);
    expect(out.headers['location']).toBe('/console/login');
  });

  it('viewer: the ledger browser pages through the entries, and an entry\'s proof verifies independently', async () => {
    const page = await signIn('viewer@lists.example');
    const size = await headOf(t.adminToken);
    await page.goto(`${t.authUrl}/console/ledger`);
    const seqs: number[] = [];
    for (;;) {
      seqs.push(...(await page.locator('#entries tbody tr[data-seq]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-seq'))))));
      const older = page.locator('#entries-older');
      if ((await older.count()) === 0) break;
      await Promise.all([page.waitForURL(/cursor=/), older.click()]);
    }
    expect(seqs).toEqual(Array.from({ length: size }, (_, i) => size - i));
    expect(seqs.length).toBeGreaterThan(50);

    // The entry of a decision: linked from the list, linking to the decision's page.
    const target = seeded[3]!;
    await page.goto(`${t.authUrl}/console/ledger`);
    const row = page.locator(`#entries tr:has(a[data-decision-link="${target.id}"])`);
    const seq = Number(await row.getAttribute('data-seq'));
    const hash = (await call(t.url, 'GET', `/v1/events/${seq}`, { token: t.adminToken })).body;
    expect(await row.locator('span[title]').getAttribute('title')).toBe(hash.hash);
    await Promise.all([page.waitForURL(`${t.authUrl}/console/ledger/entries/${seq}`), row.locator(`a[data-entry="${seq}"]`).click()]);
    const text = async (sel: string) => ((await page.textContent(sel)) ?? '').trim();
    expect(await text('#field-event-type')).toBe('decision');
    await page.screenshot({ path: `${ARTIFACTS}ledger-entry.png`, fullPage: true });
    expect(await text('#entry-hash')).toBe(hash.hash);
    expect(await text('#entry-prev-hash')).toBe(hash.prev_hash);
    const entryHash = await text('#proof-entry-hash');
    expect(entryHash).toBe(hash.hash);
    const path = (await page.locator('#proof-path li').allTextContents()).map((s) => s.trim());
    const index = Number(await text('#proof-leaf-index'));
    const treeSize = Number(await text('#proof-tree-size'));
    expect(index).toBe(seq - 1);
    const cp = await shownCheckpoint(page, 'default');
    expect(treeSize).toBe(cp.tree_size);
    expect(rootFromPath(entryHash, index, treeSize, path)).toBe(cp.root_hash);
    expect(rootFromPath('00'.repeat(32), index, treeSize, path)).not.toBe(cp.root_hash);
    const key = (await call(t.url, 'GET', '/v1/events/checkpoints/latest', { token: t.adminToken })).body.public_key as { key_id: string; raw: string };
    expect(checkpointSignatureValid(cp, key.raw)).toBe(true);
    // The chained fields, opened on a phone's width, wrap instead of widening the page.
    await page.setViewportSize({ width: 390, height: 800 });
    await page.click('details summary');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(await page.locator('details pre').last().textContent()).toContain(target.id);
    await Promise.all([page.waitForURL(`${t.authUrl}/console/decisions/${target.id}`), page.click(`#field-decision a[data-decision-link="${target.id}"]`)]);
    expect(pageProblems).toEqual([]);
  });

  it('admin: the checkpoints are listed with their size, root, time and key', async () => {
    const page = await signIn('admin@lists.example');
    await page.goto(`${t.authUrl}/console/ledger`);
    await Promise.all([page.waitForURL(`${t.authUrl}/console/ledger/checkpoints`), page.click('#checkpoints-link')]);
    const listed = (await call(t.url, 'GET', '/v1/events/checkpoints?limit=50', { token: t.adminToken })).body.data as { tree_size: number; root_hash: string; key_id: string }[];
    expect(listed.length).toBeGreaterThan(0);
    const shown = await page.locator('#checkpoints tbody tr[data-tree-size]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-tree-size'))));
    expect(shown).toEqual(listed.map((c) => c.tree_size));
    const first = page.locator(`#checkpoints tr[data-tree-size="${listed[0]!.tree_size}"]`);
    expect(await first.locator('span[title]').getAttribute('title')).toBe(listed[0]!.root_hash);
    expect(((await first.locator('td').nth(3).textContent()) ?? '').trim()).toBe(listed[0]!.key_id);
    // A later page, when there is one, starts after the last one shown.
    if ((await page.locator('#checkpoints-later').count()) > 0) {
      await Promise.all([page.waitForURL(/from=/), page.click('#checkpoints-later')]);
      const next = await page.locator('#checkpoints tbody tr[data-tree-size]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-tree-size'))));
      expect(next[0]).toBeGreaterThan(shown.at(-1)!);
    }
  });

  it('another tenant reaches none of these entries: 404 for a seq past its own chain, and its list shows only its own', async () => {
    const page = await signIn('other@lists.example');
    const own = await headOf(otherTenantAdmin);
    const theirs = await headOf(t.adminToken);
    expect(theirs).toBeGreaterThan(own);
    const cookie = await cookieOf(page);
    for (const seq of [String(theirs), '0', 'dec_x1', '99999999999999999']) expectEnvelope(await call(t.authUrl, 'GET', `/console/ledger/entries/${seq}`, { headers: { cookie } }), 404, 'not_found');
    await page.goto(`${t.authUrl}/console/ledger`);
    const seqs = await page.locator('#entries tbody tr[data-seq]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-seq'))));
    expect(seqs).toEqual(Array.from({ length: own }, (_, i) => own - i));
    const decisions = await page.locator('#entries a[data-decision-link]').evaluateAll((as) => as.map((a) => a.getAttribute('data-decision-link')));
    for (const id of decisions) expect(seeded.some((d) => d.id === id)).toBe(false);
  });
});
