import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from './helpers/launch-chromium.js';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { signInToConsole } from './helpers/console-sign-in.js';
import { closeGatewayWithMock, startGatewayWithMock, type GatewayWithMock } from './helpers/gateway-with-mock.js';
import { viewDigest } from '../src/governance/admin-actions.js';
import { loadGatewayConfig } from '../src/config.js';

/**
 * The opt-in sampled request log (docs/console.md, "Request log"): per-tenant settings on the API and the console,
 * audited; samples of proxied calls' texts after redaction, sealed at rest, shown on the decision page; tenant
 * isolation; retention; a gateway without REQUEST_LOG_KEY. Real gateway, real LMDB, real Chromium.
 */
const PASSWORD = 'request log password 1';
/** Screenshots for docs/console.md. */
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/console/', import.meta.url));
const KEY = '5a'.repeat(32);
const EMAIL = 'ana.souza@example.com';
const CPF = '529.982.247-25';
const ANSWER_EMAIL = 'carla@example.net';

let g: GatewayWithMock;
let t: TestGateway;
let browser: Browser;
let viewerToken = '';
const pageProblems: string[] = [];
const ids = { off: '', whole: '', stream: '' };

beforeAll(async () => {
  g = await startGatewayWithMock({ passwordScryptLogN: 12, requestLogKey: KEY });
  t = g.t;
  for (const [email, role] of [['admin@log.example', 'admin'], ['viewer@log.example', 'viewer']]) {
    expect((await call(t.url, 'POST', '/admin/users', { token: t.adminToken, body: { email, name: `The ${role}`, role, password: PASSWORD } })).status).toBe(201);
  }
  viewerToken = await t.token('default', 'viewer');
  expect((await call(t.url, 'POST', '/v1/policies', { token: t.adminToken, body: { name: 'mask personal data', type: 'pii_redaction', risk: 10, rules: { action: 'REDACT' } } })).status).toBe(200);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await closeGatewayWithMock(g);
});

const signIn = (email: string): Promise<Page> => signInToConsole(browser, t.authUrl, email, PASSWORD, pageProblems);
const settings = async (token = viewerToken) => (await call(t.url, 'GET', '/v1/settings/request-log', { token })).body;
const samplesStored = (): number => [...t.gw.deps.store.requestSamples.getKeys({})].length;
const ledgerSize = (): number => t.gw.deps.ledger.head('default').size;

/** A proxied chat call whose prompt holds an e-mail address and a CPF; its decision id. */
async function proxied(marker: string, stream = false): Promise<string> {
  g.mock.next({ content: `Reply to ${ANSWER_EMAIL} about ANSWER-${marker}` });
  const r = await call(t.url, 'POST', '/v1/proxy/chat/completions', {
    token: t.adminToken,
    headers: { 'x-svc-agent-id': 'agent-log' },
    body: { model: 'gpt-4o', stream, messages: [{ role: 'user', content: `REQUEST-${marker}: write to ${EMAIL}, CPF ${CPF}` }] },
  });
  expect(r.status, r.text).toBe(200);
  // The agent got the answer redacted, whole or streamed.
  expect(r.text).not.toContain(ANSWER_EMAIL);
  return r.headers['x-svc-trace-id'] as string;
}

/** Waits until the sample's asynchronous write is visible. */
async function sampled(id: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (t.gw.requestLog.log.lookup('default', id).kind === 'sampled') return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no sample for ${id}`);
}

/** Every byte of the gateway's LMDB environment, as on disk. */
function lmdbBytes(): Buffer {
  const dir = join(t.dataDir, 'gateway');
  return Buffer.concat(readdirSync(dir).map((f) => readFileSync(join(dir, f))));
}

describe('the sampled request log', () => {
  it('is off by default: a proxied call keeps no sample and its page says the log is off', async () => {
    expect(await settings()).toEqual({ enabled: false, sample_rate: 0.1, retention_days: 30, updated_at: null, updated_by: null, key_configured: true });
    ids.off = await proxied('off');
    expect(samplesStored()).toBe(0);
    const page = await signIn('viewer@log.example');
    await page.goto(`${t.authUrl}/console/decisions/${ids.off}`);
    expect(await page.getAttribute('#sample', 'data-sample')).toBe('off');
    await page.context().close();
  });

  it('refuses bad settings with 400 invalid_request and changes nothing; a viewer reads them but may not change them', async () => {
    const before = await settings();
    const size = ledgerSize();
    const bad = [{}, { sample_rate: 0 }, { sample_rate: -0.5 }, { sample_rate: 1.01 }, { sample_rate: '1' }, { retention_days: 0 }, { retention_days: 366 }, { retention_days: 1.5 }, { enabled: 'yes' }, { enabled: true, other: 1 }, []];
    for (const body of bad) expectEnvelope(await call(t.url, 'PUT', '/v1/settings/request-log', { token: t.adminToken, body }), 400, 'invalid_request');
    expectEnvelope(await call(t.url, 'PUT', '/v1/settings/request-log', { token: viewerToken, body: { enabled: true, sample_rate: 1 } }), 403, 'permission_denied');
    expectEnvelope(await call(t.url, 'PUT', '/v1/settings/request-log', { token: await t.token('default', 'operator'), body: { enabled: true } }), 403, 'permission_denied');
    expect(await settings()).toEqual(before);
    expect(ledgerSize()).toBe(size);

    // The console's form, as a viewer: no form to fill, and a post is refused before its body is read.
    const page = await signIn('viewer@log.example');
    await page.goto(`${t.authUrl}/console/settings`);
    expect(await page.textContent('#request-log-enabled')).toBe('no');
    expect(await page.locator('#request-log-form').count()).toBe(0);
    expect(await page.locator('#request-log-read-only').count()).toBe(1);
    const posted = await page.evaluate(async () => (await fetch('/console/settings/request-log', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'enabled=on&sample_rate=1&retention_days=30' })).status);
    expect(posted).toBe(403);
    await page.context().close();

    // An admin's bad rate in the form: shown again with the reason, nothing changed.
    const admin = await signIn('admin@log.example');
    await admin.goto(`${t.authUrl}/console/settings`);
    await admin.check('input[name=enabled]');
    await admin.fill('input[name=sample_rate]', '1.5');
    await Promise.all([admin.waitForLoadState('load'), admin.click('#request-log-form button[type=submit]')]);
    await admin.waitForSelector('#settings-error');
    expect(await admin.textContent('#settings-error')).toMatch(/sample_rate/);
    expect(await admin.textContent('#request-log-enabled')).toBe('no');
    await admin.context().close();
    expect(await settings()).toEqual(before);
    expect(ledgerSize()).toBe(size);
  });

  it('an admin enables it at rate 1 in the console: the change is on the audit trail and the ledger verifies', async () => {
    const size = ledgerSize();
    const page = await signIn('admin@log.example');
    await page.goto(`${t.authUrl}/console/settings`);
    await page.check('input[name=enabled]');
    await page.fill('input[name=sample_rate]', '1');
    await page.fill('input[name=retention_days]', '30');
    await Promise.all([page.waitForURL(`${t.authUrl}/console/settings?saved=1`), page.click('#request-log-form button[type=submit]')]);
    expect(await page.textContent('#request-log-enabled')).toBe('yes');
    expect(await page.textContent('#request-log-rate')).toBe('1');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}settings-request-log.png`, fullPage: true });
    const now = await settings();
    expect(now).toMatchObject({ enabled: true, sample_rate: 1, retention_days: 30 });
    expect(typeof now.updated_by === 'string' && now.updated_by !== '').toBe(true);

    // Chained once, as an admin action with the digests of the settings before and after, and listed on the audit trail.
    expect(ledgerSize()).toBe(size + 1);
    const entry = t.gw.deps.ledger.list('default', { limit: 1, order: 'desc', eventType: 'settings.request_log_updated', cursor: null }).events[0];
    expect(entry?.decision).toBeNull();
    expect(entry?.payload).toMatchObject({
      action: 'settings.request_log_updated',
      target: 'request_log',
      before: viewDigest({ enabled: false, sample_rate: 0.1, retention_days: 30 }),
      after: viewDigest({ enabled: true, sample_rate: 1, retention_days: 30 }),
    });
    await page.goto(`${t.authUrl}/console/audit?action=settings.request_log_updated`);
    const rows = await page.$$eval('#audit tbody tr[data-action]', (trs) => trs.map((r) => r.getAttribute('data-action')));
    expect(rows).toEqual(['settings.request_log_updated']);
    await page.context().close();
    const verified = await call(t.url, 'GET', '/v1/events/verify', { token: t.adminToken });
    expect(verified.body.ok, verified.text).toBe(true);
  });

  it('keeps whole and streamed answers with the redacted texts only, encrypted at rest, shown on the decision page', async () => {
    ids.whole = await proxied('whole');
    ids.stream = await proxied('stream', true);
    await sampled(ids.whole);
    await sampled(ids.stream);

    const page = await signIn('viewer@log.example');
    for (const [id, marker, streamed] of [[ids.whole, 'whole', false], [ids.stream, 'stream', true]] as const) {
      await page.goto(`${t.authUrl}/console/decisions/${id}`);
      expect(await page.getAttribute('#sample', 'data-sample')).toBe('sampled');
      const request = (await page.textContent('#sample-request')) ?? '';
      const answer = (await page.textContent('#sample-answer')) ?? '';
      expect(request).toContain(`REQUEST-${marker}`);
      expect(request).toContain('[REDACTED:EMAIL]');
      expect(request).toContain('[REDACTED:BR_CPF]');
      expect(answer).toContain(`ANSWER-${marker}`);
      expect(answer).toContain('[REDACTED:EMAIL]');
      if (streamed) expect(answer).not.toContain('chat.completion.chunk');
      else {
        mkdirSync(ARTIFACTS, { recursive: true });
        await page.locator('#sample').screenshot({ path: `${ARTIFACTS}decision-sampled.png` });
      }
      const whole = await page.content();
      for (const original of [EMAIL, CPF, ANSWER_EMAIL]) expect(whole, `${marker}: ${original}`).not.toContain(original);
    }
    await page.context().close();

    // At rest: neither the texts nor their redacted forms are in the LMDB files in clear.
    await t.gw.deps.store.root.flushed;
    const disk = lmdbBytes();
    for (const clear of ['REQUEST-whole', 'ANSWER-whole', 'REQUEST-stream', 'ANSWER-stream', '[REDACTED:BR_CPF]', EMAIL, CPF]) expect(disk.includes(Buffer.from(clear)), clear).toBe(false);
  });

  it('another tenant reads none of it, and a sealed record copied under another decision does not open', async () => {
    const other = await t.tenant('other');
    expect((await call(t.url, 'POST', '/admin/users', { token: other.admin, body: { email: 'admin@other.example', name: 'Other', role: 'admin', password: PASSWORD } })).status).toBe(201);
    expect((await call(t.url, 'GET', '/v1/settings/request-log', { token: other.viewer })).body.enabled).toBe(false);
    const page = await signIn('admin@other.example');
    const r = await page.goto(`${t.authUrl}/console/decisions/${ids.whole}`);
    expect(r?.status()).toBe(404);
    expect(await page.content()).not.toContain('REQUEST-whole');
    await page.context().close();
    expect(t.gw.requestLog.log.lookup('other', ids.whole).kind).toBe('off');

    const samples = t.gw.deps.store.requestSamples;
    const record = samples.get(['default', ids.whole]) as unknown;
    await samples.put(['default', ids.off], record);
    await samples.put(['other', ids.whole], record);
    expect(t.gw.requestLog.log.lookup('default', ids.off).kind).toBe('unreadable');
    expect(t.gw.requestLog.log.lookup('other', ids.whole).kind).toBe('unreadable');
    await samples.remove(['default', ids.off]);
    await samples.remove(['other', ids.whole]);
  });

  it('off again keeps the samples taken; retention deletes those older than retention_days', async () => {
    const off = await call(t.url, 'PUT', '/v1/settings/request-log', { token: t.adminToken, body: { enabled: false } });
    expect(off.status, off.text).toBe(200);
    const later = await proxied('after');
    expect(t.gw.requestLog.log.lookup('default', later).kind).toBe('off');
    expect(t.gw.requestLog.log.lookup('default', ids.whole).kind).toBe('sampled');
    const pruner = t.gw.requestLog.pruner;
    expect(await pruner.prune(Date.now() + 29 * 86_400_000)).toBe(0);
    expect(samplesStored()).toBe(2);
    expect(await pruner.prune(Date.now() + 31 * 86_400_000)).toBe(2);
    expect(samplesStored()).toBe(0);
    expect(t.gw.requestLog.log.lookup('default', ids.whole).kind).toBe('off');
  });

  it('concurrent changes are applied one at a time: each chained change starts from the one before it', async () => {
    const rates = [0.25, 0.5, 0.75, 1];
    const answers = await Promise.all(rates.map((sample_rate) => call(t.url, 'PUT', '/v1/settings/request-log', { token: t.adminToken, body: { enabled: true, sample_rate } })));
    for (const a of answers) expect(a.status, a.text).toBe(200);
    const changes = t.gw.deps.ledger.list('default', { limit: rates.length, order: 'desc', eventType: 'settings.request_log_updated', cursor: null }).events.reverse();
    expect(changes).toHaveLength(rates.length);
    for (let i = 1; i < changes.length; i++) expect(changes[i]!.payload['before']).toBe(changes[i - 1]!.payload['after']);
    expect(changes.at(-1)!.payload['after']).toBe(viewDigest({ enabled: true, sample_rate: (await settings()).sample_rate, retention_days: 30 }));
  });

  it('keeps no answer the output checks did not read: an upstream error that echoes personal data', async () => {
    expect((await settings()).sample_rate).toBeGreaterThan(0);
    await call(t.url, 'PUT', '/v1/settings/request-log', { token: t.adminToken, body: { enabled: true, sample_rate: 1 } });
    g.mock.next({ status: 400, json: { error: { message: `bad request for ${ANSWER_EMAIL}`, type: 'invalid_request_error' } } });
    const r = await call(t.url, 'POST', '/v1/proxy/chat/completions', {
      token: t.adminToken,
      headers: { 'x-svc-agent-id': 'agent-log' },
      body: { model: 'gpt-4o', messages: [{ role: 'user', content: `REQUEST-error: write to ${EMAIL}` }] },
    });
    expect(r.status).toBe(400);
    const id = r.headers['x-svc-trace-id'] as string;
    await sampled(id);
    const s = t.gw.requestLog.log.lookup('default', id);
    if (s.kind !== 'sampled') throw new Error(s.kind);
    expect(s.sample.request).toContain('REQUEST-error');
    expect(s.sample.request).not.toContain(EMAIL);
    expect(s.sample.answer).toBeNull();
  });

  it('left no page errors (the refusals above are the answers asserted)', () => {
    expect(pageProblems.filter((p) => !/^console: Failed to load resource: the server responded with a status of (400|403|404) /.test(p))).toEqual([]);
  });
});

describe('a gateway without REQUEST_LOG_KEY', () => {
  it('refuses to start with a malformed key, naming the setting but never the value', () => {
    for (const key of ['5a'.repeat(31), 'z'.repeat(64), `${'5a'.repeat(32)}00`]) {
      expect(() => loadGatewayConfig({ REQUEST_LOG_KEY: key })).toThrow(/^REQUEST_LOG_KEY: must be 64 hexadecimal characters/);
      try {
        loadGatewayConfig({ REQUEST_LOG_KEY: key });
      } catch (err) {
        expect(String(err)).not.toContain(key);
      }
    }
  });

  it('answers 503 request_log_key_missing to enabling the log and changes nothing', async () => {
    const bare = await startTestGateway();
    try {
      const before = (await call(bare.url, 'GET', '/v1/settings/request-log', { token: bare.adminToken })).body;
      expect(before).toMatchObject({ enabled: false, key_configured: false });
      const size = bare.gw.deps.ledger.head('default').size;
      const e = expectEnvelope(await call(bare.url, 'PUT', '/v1/settings/request-log', { token: bare.adminToken, body: { enabled: true, sample_rate: 1 } }), 503, 'upstream_unavailable');
      expect(e.message).toContain('REQUEST_LOG_KEY');
      expect((await call(bare.url, 'GET', '/v1/settings/request-log', { token: bare.adminToken })).body).toEqual(before);
      expect(bare.gw.deps.ledger.head('default').size).toBe(size);
    } finally {
      await bare.close();
    }
  });
});
