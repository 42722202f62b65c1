import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from '../helpers/launch-chromium.js';
import { createLogger } from '@aduana/shared';
import { startLocalPostgres, type LocalPostgres } from '@aduana/shared/local-servers';
import { loadGatewayConfig } from '../../src/config.js';
import { startControlPlane, type RunningControlPlane } from '../../src/control-plane.js';
import { openPostgresRepositories, type PostgresRepositories } from '../../src/fleet/postgres/open-postgres-repositories.js';
import { viewDigest } from '../../src/governance/admin-actions.js';
import type { LedgerEntry } from '../../src/ledger/index.js';
import { call, expectEnvelope } from '../helpers/start-test-gateway.js';
import { startSidecar, type TestSidecar } from '../helpers/fleet-control-plane.js';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { MockUpstream } from '../helpers/mock-upstream.js';

/**
 * The sampled request log in fleet mode (docs/console.md, "Request log"; docs/fleet.md, "The bundle"): set at the
 * control plane (API and console, PostgreSQL, chained in its own chain), carried in the bundle, applied at each
 * sidecar, which samples with its own REQUEST_LOG_KEY and keeps the samples. A real PostgreSQL, a control plane, two
 * real sidecars (one with a key, one without) before a mock LLM upstream, and a real Chromium.
 */
const PASSWORD = 'control plane request log 1';
const KEY = '6b'.repeat(32);
const EMAIL = 'ana.souza@example.com';
const CHAIN = 'control-plane/default';
let pgServer: LocalPostgres;
let databaseUrl = '';
const dirs: string[] = [];
let cp: RunningControlPlane;
let repos: PostgresRepositories;
let keyed: TestSidecar;
let unkeyed: TestSidecar;
let mock: MockUpstream;
let browser: Browser;
let sidecarToken = '';
let admin = '';
let adminTokenId = '';
let viewer = '';
let adminUserId = '';
const pageProblems: string[] = [];

const tmp = (name: string): string => {
  const d = mkdtempSync(join(tmpdir(), `aduana-cprl-${name}-`));
  dirs.push(d);
  return d;
};

/** The fleet revision as committed (the control plane's /health hears it a moment later, by NOTIFY). */
const revision = async (): Promise<number> => Number((await repos.pool.query<{ revision: string }>('SELECT revision FROM fleet_revision')).rows[0]!.revision);
const settingsAt = async (base: string): Promise<Record<string, unknown>> => (await call(base, 'GET', '/v1/settings/request-log', { token: viewer })).body;
const signIn = (email: string): Promise<Page> => signInToConsole(browser, cp.authUrl, email, PASSWORD, pageProblems);

/** The control plane's own chain of the default tenant's request log changes, by seq. */
async function requestLogChanges(): Promise<LedgerEntry[]> {
  const r = await call(cp.url, 'GET', `/v1/events?chain_id=${encodeURIComponent(CHAIN)}&limit=500`, { token: admin });
  expect(r.status, r.text).toBe(200);
  return (r.body.events as LedgerEntry[]).filter((e) => e.event_type === 'settings.request_log_updated').sort((a, b) => a.seq - b.seq);
}

/** A proxied chat call through `s` whose prompt holds an e-mail address; its decision id. */
async function proxied(s: TestSidecar, marker: string): Promise<string> {
  mock.next({ content: `answer ANSWER-${marker}` });
  const r = await call(s.url, 'POST', '/v1/proxy/chat/completions', {
    token: admin,
    headers: { 'x-svc-agent-id': 'agent-log' },
    body: { model: 'gpt-4o', messages: [{ role: 'user', content: `REQUEST-${marker}: write to ${EMAIL}` }] },
  });
  expect(r.status, r.text).toBe(200);
  return r.headers['x-svc-trace-id'] as string;
}

const samplesAt = (s: TestSidecar): number => [...s.gw.deps.store.requestSamples.getKeys({})].length;

/** Waits for the sidecar's GET to show what the control plane set (it takes it from its next bundle). */
const takes = (s: TestSidecar, want: Record<string, unknown>): Promise<void> =>
  vi.waitFor(async () => expect(await settingsAt(s.url)).toMatchObject(want), { timeout: 10_000, interval: 25 });

beforeAll(async () => {
  pgServer = await startLocalPostgres();
  databaseUrl = await pgServer.createDatabase('cp_request_log');
  cp = await startControlPlane({
    config: loadGatewayConfig({}, { databaseUrl, dataDir: tmp('control'), port: 0, authPort: 0, quietBootstrap: true, logLevel: 'silent', passwordScryptLogN: 12 }),
    logger: createLogger('control', { level: 'silent' }),
  });
  admin = cp.bootstrapToken as string;
  repos = await openPostgresRepositories(databaseUrl, { sessionTtlMs: 3_600_000 });
  adminTokenId = repos.tokens.findByToken(admin)!.id;
  sidecarToken = (await repos.sidecarTokens.create('cprl', null)).token;
  // Enterprise: the plan's rate limit never interferes with the polling below.
  expect(await repos.tenants.setPlan('default', 'enterprise', 'test')).toBeDefined();
  for (const [email, role] of [['admin@cprl.example', 'admin'], ['viewer@cprl.example', 'viewer']] as const) {
    const r = await call(cp.url, 'POST', '/admin/users', { token: admin, body: { email, name: email, role, password: PASSWORD } });
    expect(r.status, r.text).toBe(201);
    if (role === 'admin') adminUserId = r.body.id;
  }
  const v = await call(cp.authUrl, 'POST', '/token', { token: admin, body: { name: 'cprl viewer', role: 'viewer' } });
  expect(v.status, v.text).toBe(200);
  viewer = v.body.token;
  const pii = await call(cp.url, 'POST', '/v1/policies', { token: admin, body: { name: 'mask personal data', type: 'pii_redaction', risk: 10, rules: { action: 'REDACT' } } });
  expect(pii.status, pii.text).toBe(200);
  mock = await new MockUpstream().start();
  keyed = await startSidecar(cp.url, sidecarToken, tmp('keyed'), { shipLingerMs: 0, upstreamBaseUrl: mock.url, requestLogKey: KEY });
  unkeyed = await startSidecar(cp.url, sidecarToken, tmp('unkeyed'), { shipLingerMs: 0, upstreamBaseUrl: mock.url });
  for (const s of [keyed, unkeyed]) {
    await vi.waitFor(async () => expect((await call(s.url, 'GET', '/v1/policies', { token: viewer })).body?.data?.length).toBe(1), { timeout: 15_000, interval: 50 });
  }
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await keyed?.close();
  await unkeyed?.close();
  await mock?.close();
  await repos?.close();
  await cp?.close();
  await pgServer?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}, 60_000);

describe('the request log in fleet mode', () => {
  it('is off by default everywhere; bad input at the control plane is 400 and a viewer 403: nothing changed, no bundle bump', async () => {
    expect(await settingsAt(cp.url)).toEqual({ enabled: false, sample_rate: 0.1, retention_days: 30, updated_at: null, updated_by: null, key_configured: null });
    expect(await settingsAt(keyed.url)).toMatchObject({ enabled: false, key_configured: true });
    expect(await settingsAt(unkeyed.url)).toMatchObject({ enabled: false, key_configured: false });
    const rev = await revision();
    const bad = [{}, { sample_rate: 0 }, { sample_rate: 1.01 }, { sample_rate: '1' }, { retention_days: 0 }, { retention_days: 366 }, { retention_days: 1.5 }, { enabled: 'yes' }, { enabled: true, other: 1 }, []];
    for (const body of bad) expectEnvelope(await call(cp.url, 'PUT', '/v1/settings/request-log', { token: admin, body }), 400, 'invalid_request');
    expectEnvelope(await call(cp.url, 'PUT', '/v1/settings/request-log', { token: viewer, body: { enabled: true } }), 403, 'permission_denied');
    expect(await settingsAt(cp.url)).toMatchObject({ enabled: false, updated_at: null });
    expect(await revision()).toBe(rev);
    expect(await requestLogChanges()).toEqual([]);
  });

  it('enabled at the control plane (no key needed there): chained there, a new bundle, and the keyed sidecar samples the redacted texts only', async () => {
    const rev = await revision();
    const put = await call(cp.url, 'PUT', '/v1/settings/request-log', { token: admin, body: { enabled: true, sample_rate: 1 } });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ enabled: true, sample_rate: 1, retention_days: 30, updated_by: adminTokenId, key_configured: null });
    expect(await revision()).toBeGreaterThan(rev);
    const [entry] = await requestLogChanges();
    expect(entry?.payload).toMatchObject({
      action: 'settings.request_log_updated',
      target: 'request_log',
      before: viewDigest({ enabled: false, sample_rate: 0.1, retention_days: 30 }),
      after: viewDigest({ enabled: true, sample_rate: 1, retention_days: 30 }),
    });

    // Each sidecar takes it from its bundle; GET shows it, with whether this sidecar has a key.
    await takes(keyed, { enabled: true, sample_rate: 1, updated_by: adminTokenId, key_configured: true });
    await takes(unkeyed, { enabled: true, sample_rate: 1, key_configured: false });
    // A change is still the control plane's.
    expectEnvelope(await call(keyed.url, 'PUT', '/v1/settings/request-log', { token: admin, body: { enabled: false } }), 409, 'invalid_request');
    expect(await settingsAt(keyed.url)).toMatchObject({ enabled: true });

    const id = await proxied(keyed, 'on');
    await vi.waitFor(() => expect(keyed.gw.requestLog.log.lookup('default', id).kind).toBe('sampled'), { timeout: 5000, interval: 25 });
    const s = keyed.gw.requestLog.log.lookup('default', id);
    if (s.kind !== 'sampled') throw new Error(s.kind);
    expect(s.sample.request).toContain('REQUEST-on');
    expect(s.sample.request).toContain('[REDACTED:EMAIL]');
    expect(s.sample.request).not.toContain(EMAIL);
    expect(s.sample.answer).toContain('ANSWER-on');
    // The sidecar's own console shows it on the decision page, as an embedded gateway's does.
    const session = await keyed.gw.deps.sessions.open('default', adminUserId, 'password');
    const page = await call(keyed.authUrl, 'GET', `/console/decisions/${id}`, { headers: { cookie: `aduana_session=${session.token}` } });
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('data-sample="sampled"');
    expect(page.text).toContain('REQUEST-on');
    expect(page.text).not.toContain(EMAIL);
    const settingsPage = await call(keyed.authUrl, 'GET', '/console/settings', { headers: { cookie: `aduana_session=${session.token}` } });
    expect(settingsPage.text).toContain(cp.url);
    expect(settingsPage.text).not.toContain('id="request-log-form"');

    // Without REQUEST_LOG_KEY a sidecar samples nothing, and its settings page says so.
    const other = await proxied(unkeyed, 'unkeyed');
    expect(unkeyed.gw.requestLog.log.lookup('default', other).kind).toBe('off');
    expect(samplesAt(unkeyed)).toBe(0);
    const unkeyedSession = await unkeyed.gw.deps.sessions.open('default', adminUserId, 'password');
    const unkeyedPage = await call(unkeyed.authUrl, 'GET', '/console/settings', { headers: { cookie: `aduana_session=${unkeyedSession.token}` } });
    expect(unkeyedPage.text).toContain('it samples nothing');

    // The control plane's decision page says the sample stays at the sidecar.
    await vi.waitFor(async () => expect((await call(cp.url, 'GET', `/admin/decisions/${id}`, { token: admin })).status).toBe(200), { timeout: 5000, interval: 25 });
    const cpSession = await call(cp.authUrl, 'POST', '/login', { body: { email: 'viewer@cprl.example', password: PASSWORD } });
    const cpPage = await call(cp.authUrl, 'GET', `/console/decisions/${id}`, { headers: { cookie: `aduana_session=${cpSession.body.session_token}` } });
    expect(cpPage.text).toContain('data-sample="elsewhere"');
    // Named by the instance id of the chain holding the decision, which the sidecar's /health shows.
    expect(keyed.gw.sidecar?.instanceId).toMatch(/^sci_/);
    expect(cpPage.text).toContain(`<span class="mono" id="sample-sidecar">${keyed.gw.sidecar?.instanceId}</span>`);
  });

  it('a sidecar restarted while its control plane is away keeps the last bundle\'s settings and samples', async () => {
    await keyed.stop();
    // Nothing listens on the control plane URL it is given now: it serves on what its data dir holds.
    const away = await startSidecar('http://127.0.0.1:9', sidecarToken, keyed.dataDir, { shipLingerMs: 0, upstreamBaseUrl: mock.url, requestLogKey: KEY });
    try {
      expect(await settingsAt(away.url)).toMatchObject({ enabled: true, sample_rate: 1 });
      const id = await proxied(away, 'away');
      await vi.waitFor(() => expect(away.gw.requestLog.log.lookup('default', id).kind).toBe('sampled'), { timeout: 5000, interval: 25 });
    } finally {
      await away.stop();
    }
    keyed = await startSidecar(cp.url, sidecarToken, keyed.dataDir, { shipLingerMs: 0, upstreamBaseUrl: mock.url, requestLogKey: KEY });
    await takes(keyed, { enabled: true, sample_rate: 1 });
  });

  it("the console's form at the control plane: a viewer reads, an admin's bad input is refused, an admin's change is chained", async () => {
    const before = await settingsAt(cp.url);
    // The row's version: a refused change writes nothing, so its bundle trigger does not fire (the revision itself may
    // move meanwhile: the sidecars' agent reports bump it).
    const rowVersion = async (): Promise<string> => (await repos.pool.query<{ xmin: string }>("SELECT xmin::text FROM request_log_settings WHERE tenant_id = 'default'")).rows[0]!.xmin;
    const version = await rowVersion();
    const view = await signIn('viewer@cprl.example');
    await view.goto(`${cp.authUrl}/console/settings`);
    expect(await view.textContent('#request-log-enabled')).toBe('yes');
    expect(await view.textContent('#request-log-key')).toContain('each sidecar samples with its own REQUEST_LOG_KEY');
    expect(await view.locator('#request-log-form').count()).toBe(0);
    const posted = await view.evaluate(async () => (await fetch('/console/settings/request-log', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'enabled=on&sample_rate=1&retention_days=30' })).status);
    expect(posted).toBe(403);
    await view.context().close();

    const page = await signIn('admin@cprl.example');
    await page.goto(`${cp.authUrl}/console/settings`);
    // The control plane's variant of the page (its note and form): no serious or critical axe violation, no overflow.
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      const { violations } = await new AxeBuilder({ page }).analyze();
      expect(violations.filter((x) => x.impact === 'serious' || x.impact === 'critical').map((x) => x.id)).toEqual([]);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
    }
    await page.fill('input[name=sample_rate]', 'lots');
    await Promise.all([page.waitForLoadState('load'), page.click('#request-log-form button[type=submit]')]);
    await page.waitForSelector('#settings-error');
    expect(await page.textContent('#settings-error')).toMatch(/sample_rate/);
    expect(await settingsAt(cp.url)).toEqual(before);
    expect(await rowVersion()).toBe(version);

    await page.goto(`${cp.authUrl}/console/settings`);
    await page.fill('input[name=sample_rate]', '0.5');
    await page.fill('input[name=retention_days]', '7');
    await Promise.all([page.waitForURL(`${cp.authUrl}/console/settings?saved=1`), page.click('#request-log-form button[type=submit]')]);
    expect(await page.textContent('#request-log-rate')).toBe('0.5');
    expect(await settingsAt(cp.url)).toMatchObject({ enabled: true, sample_rate: 0.5, retention_days: 7, updated_by: expect.stringMatching(/\S/) });
    await takes(keyed, { enabled: true, sample_rate: 0.5, retention_days: 7 });

    await page.goto(`${cp.authUrl}/console/audit?action=settings.request_log_updated`);
    const rows = await page.$$eval('#audit tbody tr[data-action]', (trs) => trs.map((r) => r.getAttribute('data-action')));
    expect(rows).toEqual(['settings.request_log_updated', 'settings.request_log_updated']);
    expect(await page.textContent('#audit tbody tr:first-child td:nth-child(3)')).toContain(adminUserId);
    await page.context().close();
    const verified = await call(cp.url, 'GET', '/v1/events/verify', { token: admin });
    expect(verified.body.ok, verified.text).toBe(true);
  });

  it("concurrent changes are chained one after another: each change's before is the previous one's after", async () => {
    const rates = [0.2, 0.3, 0.4, 0.6, 0.7, 0.8];
    const answers = await Promise.all(rates.map((sample_rate) => call(cp.url, 'PUT', '/v1/settings/request-log', { token: admin, body: { sample_rate } })));
    for (const a of answers) expect(a.status, a.text).toBe(200);
    const chain = await requestLogChanges();
    expect(chain).toHaveLength(2 + rates.length);
    for (let i = 1; i < chain.length; i++) expect(chain[i]!.payload['before']).toBe(chain[i - 1]!.payload['after']);
    const last = await settingsAt(cp.url);
    expect(chain[chain.length - 1]!.payload['after']).toBe(viewDigest({ enabled: last['enabled'], sample_rate: last['sample_rate'], retention_days: last['retention_days'] }));
    expect((await call(cp.url, 'GET', '/v1/events/verify', { token: admin })).body.ok).toBe(true);
  });

  it('disabled at the control plane: the sidecar stops sampling, and keeps what it took', async () => {
    const put = await call(cp.url, 'PUT', '/v1/settings/request-log', { token: admin, body: { enabled: false } });
    expect(put.status, put.text).toBe(200);
    await takes(keyed, { enabled: false });
    const kept = samplesAt(keyed);
    expect(kept).toBeGreaterThan(0);
    const id = await proxied(keyed, 'off');
    expect(keyed.gw.requestLog.log.lookup('default', id).kind).toBe('off');
    expect(samplesAt(keyed)).toBe(kept);
    expect(pageProblems.filter((p) => !/^console: Failed to load resource: the server responded with a status of (400|403) /.test(p))).toEqual([]);
  });
});
