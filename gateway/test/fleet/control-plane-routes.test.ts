import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '@aduana/shared';
import { freeLoopbackPort, startLocalPostgres, type LocalPostgres } from '@aduana/shared/local-servers';
import { loadGatewayConfig } from '../../src/config.js';
import { startControlPlane, type RunningControlPlane } from '../../src/control-plane.js';
import { openPostgresRepositories, type PostgresRepositories } from '../../src/fleet/postgres/open-postgres-repositories.js';
import type { LedgerEntry } from '../../src/ledger/index.js';
import type { RouteSpec } from '../../src/proxy/routing/route-spec.js';
import { call, expectEnvelope } from '../helpers/start-test-gateway.js';
import { startSidecar, type TestSidecar } from '../helpers/fleet-control-plane.js';
import { capturingLogger, dataFiles } from '../helpers/test-records.js';
import { launchChromium } from '../helpers/launch-chromium.js';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { WireMock } from '../helpers/wire-mock.js';

/**
 * Routes in a fleet (docs/routing.md, "Routes in a fleet"): set at the control plane (PostgreSQL, chained in its own
 * chain), carried in the bundle as names of credentials, served by each sidecar with its own credentials (one from its
 * store, one from its environment). A real PostgreSQL, a control plane, two real sidecars, mock providers on loopback
 * and a port nothing listens on, the official OpenAI SDK.
 */
const SECRET_STORED = 'sk-fleet-route-stored-aaaaaaaaaaaa';
const SECRET_ENV = 'sk-fleet-route-environment-bbbbbbbb';
const CHAIN = 'control-plane/default';
let pgServer: LocalPostgres;
let databaseUrl = '';
const dirs: string[] = [];
let cp: RunningControlPlane;
let repos: PostgresRepositories;
let stored: TestSidecar;
let fromEnv: TestSidecar;
let provider: WireMock;
let fallback: WireMock;
let dead = '';
let admin = '';
let sidecarToken = '';
const storedLog: string[] = [];

const tmp = (name: string): string => {
  const d = mkdtempSync(join(tmpdir(), `aduana-cproutes-${name}-`));
  dirs.push(d);
  return d;
};

const routesAt = async (base: string): Promise<Record<string, unknown>> => (await call(base, 'GET', '/v1/routes', { token: admin })).body;
/** Waits for a sidecar to serve the routes' version the control plane has (it takes them from its next bundle). */
const takes = (s: TestSidecar, version: number): Promise<void> => vi.waitFor(async () => expect((await routesAt(s.url))['version']).toBe(version), { timeout: 15_000, interval: 25 });
const sdkOf = (s: TestSidecar): OpenAI => new OpenAI({ apiKey: admin, baseURL: `${s.url}/v1/proxy`, maxRetries: 0, defaultHeaders: { 'x-svc-agent-id': 'fleet-router' } });

function spec(): RouteSpec {
  return {
    targets: {
      down: { provider: 'openai', base_url: dead, credential: 'openai-fleet' },
      spare: { provider: 'openai', base_url: `${fallback.url}/v1`, credential: 'openai-fleet' },
    },
    models: { 'gpt-4o': { strategy: 'fallback', targets: ['down', { target: 'spare', model: 'gpt-4o-mini' }] } },
    retry: { backoff_ms: { base: 1, max: 5 } },
  };
}

/** The control plane's own chain of the default tenant's routes changes, by seq. */
async function routeChanges(): Promise<LedgerEntry[]> {
  const r = await call(cp.url, 'GET', `/v1/events?chain_id=${encodeURIComponent(CHAIN)}&limit=500`, { token: admin });
  expect(r.status, r.text).toBe(200);
  return (r.body.events as LedgerEntry[]).filter((e) => e.event_type.startsWith('routes.')).sort((a, b) => a.seq - b.seq);
}

beforeAll(async () => {
  pgServer = await startLocalPostgres();
  databaseUrl = await pgServer.createDatabase('cp_routes');
  cp = await startControlPlane({
    config: loadGatewayConfig({}, { databaseUrl, dataDir: tmp('control'), port: 0, authPort: 0, quietBootstrap: true, logLevel: 'silent', passwordScryptLogN: 12 }),
    logger: createLogger('control', { level: 'silent' }),
  });
  admin = cp.bootstrapToken as string;
  repos = await openPostgresRepositories(databaseUrl, { sessionTtlMs: 3_600_000 });
  sidecarToken = (await repos.sidecarTokens.create('cproutes', null)).token;
  expect(await repos.tenants.setPlan('default', 'enterprise', 'test')).toBeDefined();
  provider = await new WireMock().start();
  fallback = await new WireMock().start();
  dead = `http://127.0.0.1:${await freeLoopbackPort()}/v1`;
  // One sidecar keeps the credential in its own store (as `aduana credential set` on its data dir does)...
  stored = await startSidecar(cp.url, sidecarToken, tmp('stored'), { shipLingerMs: 0, upstreamBaseUrl: `${provider.url}/v1`, credentialsKey: 'ab'.repeat(32) }, capturingLogger(storedLog, 'sidecar'));
  // ...the other takes it from its environment (a Kubernetes Secret), read once at start.
  process.env['ADUANA_CREDENTIAL_OPENAI_FLEET'] = SECRET_ENV;
  try {
    fromEnv = await startSidecar(cp.url, sidecarToken, tmp('env'), { shipLingerMs: 0, upstreamBaseUrl: `${provider.url}/v1` });
  } finally {
    delete process.env['ADUANA_CREDENTIAL_OPENAI_FLEET'];
  }
  for (const s of [stored, fromEnv]) await vi.waitFor(async () => expect((await call(s.url, 'GET', '/v1/routes', { token: admin })).status).toBe(200), { timeout: 15_000, interval: 50 });
}, 120_000);

afterAll(async () => {
  await stored?.close();
  await fromEnv?.close();
  await provider?.close();
  await fallback?.close();
  await repos?.close();
  await cp?.close();
  await pgServer?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('routes in a fleet', () => {
  it('are refused whole at the control plane as anywhere, but take any well-formed credential name (each sidecar resolves its own)', async () => {
    const bad = await call(cp.url, 'PUT', '/v1/routes', { token: admin, body: { ...spec(), models: { 'gpt-4o': { strategy: 'fallback', targets: ['nowhere'] } } } });
    expectEnvelope(bad, 400, 'invalid_request');
    expect(bad.body.error.message).toContain('nowhere');
    expect((await routesAt(cp.url))['version']).toBe(0);
  });

  it('set at the control plane, chained there, carried in the bundle by name, served by each sidecar with its own credential', async () => {
    const put = await call(cp.url, 'PUT', '/v1/routes', { token: admin, body: spec() });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ version: 1, routes: spec() });
    const changes = await routeChanges();
    expect(changes.map((e) => e.event_type)).toEqual(['routes.updated']);
    expect(changes[0]!.payload).toMatchObject({ target: 'routes', before: null });

    // Sidecar one's credential, set in its own store; sidecar two has it from its environment.
    await stored.gw.deps.credentials.set('default', 'openai-fleet', SECRET_STORED, { by: 'test', user: null }, 'trace', async () => {});
    await takes(stored, 1);
    await takes(fromEnv, 1);
    expect((await routesAt(stored.url))['routes']).toEqual(spec());

    for (const [s, secret] of [
      [stored, SECRET_STORED],
      [fromEnv, SECRET_ENV],
    ] as const) {
      fallback.reset();
      fallback.next({ text: 'from the spare' });
      const { data, response } = await sdkOf(s).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }).withResponse();
      expect(data.choices[0]!.message.content).toBe('from the spare');
      expect(response.headers.get('x-svc-target')).toBe('spare');
      expect(response.headers.get('x-svc-attempts')).toBe('2');
      expect(fallback.received[0]!.headers['authorization']).toBe(`Bearer ${secret}`);
      expect(fallback.received[0]!.body!['model']).toBe('gpt-4o-mini');
    }
    // Neither went the default way.
    expect(provider.received).toHaveLength(0);

    // The bundle names the credential and holds no secret; the control plane's database holds none either.
    const bundle = await call(cp.url, 'GET', '/v1/fleet/bundle', { token: sidecarToken });
    expect(bundle.status).toBe(200);
    expect(bundle.text).toContain('"credential":"openai-fleet"');
    expect(bundle.text).not.toContain(SECRET_STORED);
    expect(bundle.text).not.toContain(SECRET_ENV);
    // The calls' entries, routes and attempts included, reach the control plane's archive: no secret in any of it.
    await vi.waitFor(async () => {
      const n = await repos.pool.query(`SELECT count(*)::int AS n FROM ledger_entries WHERE entry::text LIKE '%"target": "spare"%' OR entry::text LIKE '%"target":"spare"%'`);
      expect(n.rows[0].n).toBeGreaterThanOrEqual(2);
    }, { timeout: 15_000, interval: 100 });
    const dump = await repos.pool.query(`SELECT string_agg(t::text, ' ') AS all FROM (SELECT entry::text AS t FROM ledger_entries UNION ALL SELECT spec::text FROM upstream_routes) x`);
    expect(dump.rows[0].all).not.toContain(SECRET_STORED);
    expect(dump.rows[0].all).not.toContain(SECRET_ENV);
    // Nor does the sidecar's data dir hold the stored one in clear.
    for (const f of dataFiles(stored.dataDir)) expect(f.bytes.includes(SECRET_STORED), f.path).toBe(false);
  });

  it('a sidecar refuses to change them (they are the control plane’s) and says which credentials it cannot resolve', async () => {
    const r = await call(stored.url, 'PUT', '/v1/routes', { token: admin, body: spec() });
    expect(expectEnvelope(r, 409, 'invalid_request').message).toContain(cp.url);
    const d = await call(fromEnv.url, 'DELETE', '/v1/routes', { token: admin });
    expect(expectEnvelope(d, 409, 'invalid_request').message).toContain(cp.url);

    const { credential: _one, ...spare } = spec().targets['spare']!;
    const named: RouteSpec = { ...spec(), targets: { ...spec().targets, spare: { ...spare, credentials: ['openai-fleet', 'openai-missing'] } } };
    const put = await call(cp.url, 'PUT', '/v1/routes', { token: admin, body: named });
    expect(put.status, put.text).toBe(200);
    await takes(stored, 2);
    await vi.waitFor(() => {
      const warned = storedLog.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => Array.isArray(l['credentials']) && l['routesVersion'] === 2);
      expect(warned).toMatchObject({ level: 40, tenantId: 'default', credentials: ['openai-missing'], routesVersion: 2 });
    });
    expect(storedLog.join('')).not.toContain(SECRET_STORED);
  });

  it("edited in the control plane's console: no credentials listed, any well-formed name taken, and the sidecars serve the change", async () => {
    const password = 'control plane routes 1';
    const u = await call(cp.url, 'POST', '/admin/users', { token: admin, body: { email: 'admin@cproutes.example', name: 'Admin', role: 'admin', password } });
    expect(u.status, u.text).toBe(201);
    const browser = await launchChromium();
    try {
      const problems: string[] = [];
      const page = await signInToConsole(browser, cp.authUrl, 'admin@cproutes.example', password, problems);
      await page.goto(`${cp.authUrl}/console/routes`);
      expect(await page.textContent('#routes-place')).toContain('every sidecar serving the tenant');
      expect(await page.locator('#credentials').count()).toBe(0);
      expect(await page.textContent('#routes-version')).toContain('Version 2');
      const named = spec();
      const edited = JSON.stringify({ ...named, targets: { ...named.targets, spare: { ...named.targets['spare']!, credential: 'openai-fleet' } }, retry: { attempts: 1, backoff_ms: { base: 1, max: 5 } } });
      await page.fill('#routes-text', edited);
      await Promise.all([page.waitForURL(`${cp.authUrl}/console/routes?saved=3`), page.click('#save-routes')]);
    } finally {
      await browser.close();
    }
    expect((await routeChanges()).map((e) => e.event_type)).toEqual(['routes.updated', 'routes.updated', 'routes.updated']);
    await takes(stored, 3);
    expect(((await routesAt(stored.url))['routes'] as RouteSpec).retry).toEqual({ attempts: 1, backoff_ms: { base: 1, max: 5 } });
  });

  it('deleted at the control plane: every sidecar goes back to its default upstream', async () => {
    const del = await call(cp.url, 'DELETE', '/v1/routes', { token: admin });
    expect(del.status, del.text).toBe(200);
    expect(del.body).toMatchObject({ version: 4, routes: null });
    expect((await routeChanges()).map((e) => e.event_type)).toEqual(['routes.updated', 'routes.updated', 'routes.updated', 'routes.deleted']);
    for (const s of [stored, fromEnv]) {
      await takes(s, 4);
      provider.reset();
      fallback.reset();
      const { response } = await sdkOf(s).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }).withResponse();
      expect(response.headers.get('x-svc-target')).toBeNull();
      expect(provider.received).toHaveLength(1);
      expect(fallback.received).toHaveLength(0);
    }
  });
});
