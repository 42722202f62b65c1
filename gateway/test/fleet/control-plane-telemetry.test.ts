import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger, newId } from '@aduana/shared';
import { startLocalPostgres, type LocalPostgres } from '@aduana/shared/local-servers';
import { loadGatewayConfig } from '../../src/config.js';
import { startControlPlane, type RunningControlPlane } from '../../src/control-plane.js';
import { openPostgresRepositories } from '../../src/fleet/postgres/open-postgres-repositories.js';
import { call, expectEnvelope, type CallResult } from '../helpers/start-test-gateway.js';
import { startSidecar, type TestSidecar } from '../helpers/fleet-control-plane.js';
import { startTcpRelay } from '../helpers/fleet/tcp-relay.js';
import { DEFAULT_DATABASE_OPTIONS, openPool } from '../../src/fleet/postgres/database.js';
import { PgTelemetryStore } from '../../src/fleet/telemetry/pg-telemetry-store.js';

/**
 * Telemetry at the control plane (docs/fleet.md, "Telemetry"): a real PostgreSQL, a real control plane on it and two
 * real sidecars shipping to it, all in this process, talking HTTP on loopback.
 */

let pg: LocalPostgres;
let databaseUrl = '';
const dirs: string[] = [];
let cp: RunningControlPlane;
let a: TestSidecar;
let b: TestSidecar;
let sidecarToken = '';
let otherSidecarToken = '';
let admin = '';
let operator = '';

const tmp = (name: string): string => {
  const d = mkdtempSync(join(tmpdir(), `aduana-cptel-${name}-`));
  dirs.push(d);
  return d;
};

const FAST = { fleetTelemetryShipMs: 100, shipLingerMs: 0 };
const now = (): number => Math.floor(Date.now() / 1000);

const decide = (base: string, agent: string): Promise<CallResult> =>
  call(base, 'POST', '/v1/decide', { token: operator, body: { agent_id: agent, action: { type: 'chat', payload: { text: 'hello' } } } });

const ingest = (base: string, body: unknown): Promise<CallResult> => call(base, 'POST', '/v1/telemetry/ingest', { token: operator, body });

const stats = (base: string, metric: string, agent: string): Promise<CallResult> =>
  call(base, 'GET', `/v1/telemetry/query/stats?metric=${metric}&from=${now() - 300}&to=${now() + 60}&agentId=${agent}`, { token: operator });

const ship = (token: string, batch: unknown): Promise<CallResult> => call(cp.url, 'POST', '/v1/fleet/telemetry', { token, body: batch });

const batchOf = (parts: { metrics?: unknown[]; logs?: unknown[]; errors?: unknown[] }, batchId = newId('tlb')) => ({
  format: 'aduana-telemetry-batch/1',
  instance_id: 'sci_TESTINSTANCE',
  batch_id: batchId,
  metrics: parts.metrics ?? [],
  logs: parts.logs ?? [],
  errors: parts.errors ?? [],
});

beforeAll(async () => {
  pg = await startLocalPostgres();
  databaseUrl = await pg.createDatabase('cp_telemetry');
  const control = () =>
    startControlPlane({
      config: loadGatewayConfig({}, { databaseUrl, dataDir, port: 0, authPort: 0, quietBootstrap: true, logLevel: 'silent' }),
      logger: createLogger('control', { level: 'silent' }),
    });
  const dataDir = tmp('control');
  // The first start creates tenant `default` and the admin token.
  const bootstrapping = await control();
  admin = bootstrapping.bootstrapToken as string;
  const repos = await openPostgresRepositories(databaseUrl, { sessionTtlMs: 3_600_000 });
  sidecarToken = (await repos.sidecarTokens.create('cptel', null)).token;
  otherSidecarToken = (await repos.sidecarTokens.create('cptel-other', ['other'])).token;
  // Enterprise: the plan's rate limit never interferes with the polling below. The control plane started afresh
  // reads it at its first request (a running one re-reads plans only every few seconds).
  expect(await repos.tenants.setPlan('default', 'enterprise', 'test')).toBeDefined();
  await repos.close();
  await bootstrapping.close();
  cp = await control();
  const op = await call(cp.authUrl, 'POST', '/token', { token: admin, body: { name: 'cptel operator', role: 'operator' } });
  expect(op.status, op.text).toBe(200);
  operator = op.body.token;
  a = await startSidecar(cp.url, sidecarToken, tmp('sidecar-a'), FAST);
  b = await startSidecar(cp.url, sidecarToken, tmp('sidecar-b'), FAST);
  for (const s of [a, b]) await vi.waitFor(async () => expect((await decide(s.url, 'warm-up')).status).toBe(200), { timeout: 10_000, interval: 50 });
}, 120_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await cp?.close();
  await pg?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}, 60_000);

describe('telemetry shipped from sidecars', () => {
  it('decisions at two sidecars add up at the control plane: decision.count, and latency avg/p95/p99 from every sample', async () => {
    const latencies: number[] = [];
    for (const [s, n] of [[a, 3], [b, 2]] as const) {
      for (let i = 0; i < n; i++) {
        const d = await decide(s.url, 'tel-lat');
        expect(d.status, d.text).toBe(200);
        latencies.push(d.body.envelope.latency_ms as number);
      }
    }
    await vi.waitFor(
      async () => {
        const r = await stats(cp.url, 'decision.count', 'tel-lat');
        expect(r.status, r.text).toBe(200);
        expect(r.body.series.reduce((n: number, p: { value: number }) => n + p.value, 0)).toBe(5);
      },
      { timeout: 10_000, interval: 50 },
    );
    const lat = await stats(cp.url, 'decision.latency_ms', 'tel-lat');
    expect(lat.status, lat.text).toBe(200);
    const sorted = [...latencies].sort((x, y) => x - y);
    expect(lat.body.metric).toBe('decision.latency_ms');
    expect(lat.body.avg).toBeCloseTo(sorted.reduce((x, y) => x + y, 0) / 5, 9);
    // Five samples: p95 and p99 are both the fifth smallest (the embedded store's nearest-rank rule).
    expect(lat.body.p95).toBe(sorted[4]);
    expect(lat.body.p99).toBe(sorted[4]);
    const sum = lat.body.series.reduce((n: number, p: { value: number }) => n + p.value, 0);
    expect(sum).toBeCloseTo(sorted.reduce((x, y) => x + y, 0), 9);
    // Without agentId the series adds every agent: at least these five.
    const all = await call(cp.url, 'GET', `/v1/telemetry/query/stats?metric=decision.count&from=${now() - 300}&to=${now() + 60}`, { token: operator });
    expect(all.body.series.reduce((n: number, p: { value: number }) => n + p.value, 0)).toBeGreaterThanOrEqual(5);
  });

  it('an ingested log reaches the control plane redacted, paged newest first', async () => {
    const planted = 'jane.doe@example.com';
    const r = await ingest(a.url, { agentId: 'tel-log', log: { level: 'info', message: `refund asked by ${planted}`, attributes: { customer: planted } } });
    expect(r.status, r.text).toBe(200);
    for (const i of [1, 2]) expect((await ingest(b.url, { agentId: 'tel-log', log: { level: 'warn', message: `retry ${i}` } })).status).toBe(200);
    let page1: CallResult | undefined;
    await vi.waitFor(
      async () => {
        page1 = await call(cp.url, 'GET', '/v1/telemetry/query/logs?agentId=tel-log&limit=2', { token: operator });
        expect(page1.status, page1.text).toBe(200);
        expect(page1.body.total).toBe(3);
      },
      { timeout: 10_000, interval: 50 },
    );
    const first = page1 as CallResult;
    expect(first.body.data).toHaveLength(2);
    expect(first.body.cursor).toBe(first.body.data[1].id);
    const page2 = await call(cp.url, 'GET', `/v1/telemetry/query/logs?agentId=tel-log&limit=2&cursor=${first.body.cursor}`, { token: operator });
    expect(page2.body).toMatchObject({ total: 3, cursor: null });
    const entries = [...first.body.data, ...page2.body.data];
    // Newest first: ids (ULIDs) descending, whichever sidecar wrote them.
    expect(entries.map((e: { id: string }) => e.id)).toEqual(entries.map((e: { id: string }) => e.id).sort().reverse());
    const redacted = entries.find((e: { message: string }) => e.message.startsWith('refund'));
    expect(redacted).toMatchObject({ agentId: 'tel-log', level: 'info', message: 'refund asked by [REDACTED:EMAIL]', attributes: { customer: '[REDACTED:EMAIL]' } });
    expect(JSON.stringify(entries)).not.toContain(planted);
  });

  it('error logs from two sidecars are one issue at the control plane, with count, firstSeen and lastSeen, and its events', async () => {
    expect((await ingest(a.url, { agentId: 'tel-err', log: { level: 'error', message: 'payment for order 17 failed' } })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 5));
    expect((await ingest(b.url, { agentId: 'tel-err-b', log: { level: 'error', message: 'payment for order 99 failed' } })).status).toBe(200);
    let issue: { id: string; count: number; firstSeen: string; lastSeen: string; title: string; agentId: string } | undefined;
    await vi.waitFor(
      async () => {
        const r = await call(cp.url, 'GET', '/v1/telemetry/query/errors/issues', { token: operator });
        expect(r.status, r.text).toBe(200);
        issue = r.body.data.find((i: { title: string }) => i.title.startsWith('payment for order'));
        expect(issue?.count).toBe(2);
      },
      { timeout: 10_000, interval: 50 },
    );
    const found = issue as NonNullable<typeof issue>;
    // The same grouping as the sidecars': their issue id is the control plane's.
    const local = await call(a.url, 'GET', '/v1/telemetry/query/errors/issues', { token: operator });
    expect(local.body.data.map((i: { id: string }) => i.id)).toContain(found.id);
    expect(found).toMatchObject({ title: 'payment for order 17 failed', level: 'error', agentId: 'tel-err-b' });
    const events = await call(cp.url, 'GET', `/v1/telemetry/query/errors/events?issueId=${found.id}`, { token: operator });
    expect(events.status, events.text).toBe(200);
    expect(events.body.data.map((e: { message: string }) => e.message)).toEqual(['payment for order 99 failed', 'payment for order 17 failed']);
    expect(found.firstSeen).toBe(events.body.data[1].timestamp);
    expect(found.lastSeen).toBe(events.body.data[0].timestamp);
    expect(Date.parse(found.firstSeen)).toBeLessThan(Date.parse(found.lastSeen));
    expect(events.body.data[0]).toMatchObject({ issueId: found.id, level: 'error', context: { agentId: 'tel-err-b', ruleId: '' } });
  });

  it('a resent batch stores nothing twice', async () => {
    const second = now();
    const batch = batchOf({
      metrics: [{ tenant_id: 'default', agent_id: 'tel-resend', second, slot: [[7], 1, null, null, null, null] }],
      errors: [{ tenant_id: 'default', id: newId('err'), timestamp: new Date().toISOString(), level: 'error', message: 'resend probe 1 failed', agent_id: 'tel-resend', rule_id: '', trace_id: 't' }],
    });
    const first = await ship(sidecarToken, batch);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ duplicate: false, stored: { metrics: 1, logs: 0, errors: 1 } });
    const again = await ship(sidecarToken, batch);
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ duplicate: true, stored: { metrics: 0, logs: 0, errors: 0 } });
    // The same event under another batch id (a sidecar that lost its acknowledgement): the event's id keeps it once.
    expect((await ship(sidecarToken, { ...batch, metrics: [], batch_id: newId('tlb') })).body.stored.errors).toBe(0);
    const count = await stats(cp.url, 'decision.count', 'tel-resend');
    expect(count.body.series).toEqual([{ timestamp: second, value: 1 }]);
    expect((await stats(cp.url, 'decision.latency_ms', 'tel-resend')).body).toMatchObject({ avg: 7, p95: 7, p99: 7 });
    const issues = await call(cp.url, 'GET', '/v1/telemetry/query/errors/issues?limit=500', { token: operator });
    expect(issues.body.data.find((i: { title: string }) => i.title === 'resend probe 1 failed')?.count).toBe(1);
  });

  it('redacts what a sidecar ships again before storing it: logs, their attributes and error events', async () => {
    // A raw batch with the sidecar token: what a sidecar that did not redact (an older or a tampered one) would send.
    const email = 'maria.silva@example.com';
    const card = '4111 1111 1111 1111';
    const at = new Date().toISOString();
    const batch = batchOf({
      logs: [{ tenant_id: 'default', id: newId('log'), timestamp: at, level: 'warn', message: `card ${card} declined for ${email}`, agent_id: 'tel-pii', trace_id: 't-pii', attributes: { customer: email, [email]: { card } } }],
      errors: [{ tenant_id: 'default', id: newId('err'), timestamp: at, level: 'error', message: `charge to ${card} failed, tell ${email}`, agent_id: 'tel-pii', rule_id: '', trace_id: 't-pii' }],
    });
    const r = await ship(sidecarToken, batch);
    expect(r.status, r.text).toBe(200);
    expect(r.body.stored).toEqual({ metrics: 0, logs: 1, errors: 1 });
    const logs = await call(cp.url, 'GET', '/v1/telemetry/query/logs?agentId=tel-pii', { token: operator });
    expect(logs.status, logs.text).toBe(200);
    expect(logs.body.data).toHaveLength(1);
    expect(logs.body.data[0]).toMatchObject({
      message: 'card [REDACTED:CREDIT_CARD] declined for [REDACTED:EMAIL]',
      attributes: { customer: '[REDACTED:EMAIL]', '[REDACTED:EMAIL]': { card: '[REDACTED:CREDIT_CARD]' } },
    });
    const issues = await call(cp.url, 'GET', '/v1/telemetry/query/errors/issues?limit=500', { token: operator });
    const issue = issues.body.data.find((i: { agentId: string }) => i.agentId === 'tel-pii');
    expect(issue).toMatchObject({ title: 'charge to [REDACTED:CREDIT_CARD] failed, tell [REDACTED:EMAIL]', count: 1 });
    const events = await call(cp.url, 'GET', `/v1/telemetry/query/errors/events?issueId=${issue.id}`, { token: operator });
    expect(events.status, events.text).toBe(200);
    expect(events.body.data.map((e: { message: string }) => e.message)).toEqual(['charge to [REDACTED:CREDIT_CARD] failed, tell [REDACTED:EMAIL]']);
    for (const text of [logs.text, issues.text, events.text]) {
      expect(text).not.toContain(email);
      expect(text).not.toContain('4111');
    }
  });

  it('redacts agent and trace ids that hold personal data, shipped or ingested there, and keeps an ingested ruleId', async () => {
    const agent = 'joana.reis@example.com';
    const trace = 'for ana@example.org';
    const at = new Date().toISOString();
    const shipped = batchOf({
      logs: [{ tenant_id: 'default', id: newId('log'), timestamp: at, level: 'info', message: 'shipped id probe', agent_id: agent, trace_id: trace, attributes: {} }],
      errors: [{ tenant_id: 'default', id: newId('err'), timestamp: at, level: 'error', message: 'shipped id probe failed', agent_id: agent, rule_id: 'pol_shipped', trace_id: trace }],
    });
    expect((await ship(sidecarToken, shipped)).status).toBe(200);
    const r = await ingest(cp.url, { traceId: trace, agentId: agent, log: { level: 'error', message: 'ingested id probe failed', attributes: { ruleId: 'pol_ingested' } } });
    expect(r.status, r.text).toBe(200);
    // The filter as sent finds the logs stored under the redacted id.
    const logs = await call(cp.url, 'GET', `/v1/telemetry/query/logs?agentId=${encodeURIComponent(agent)}`, { token: operator });
    expect(logs.status, logs.text).toBe(200);
    expect(logs.body.data.map((l: { message: string }) => l.message).sort()).toEqual(['ingested id probe failed', 'shipped id probe']);
    for (const l of logs.body.data) expect(l).toMatchObject({ agentId: '[REDACTED:EMAIL]', traceId: 'for [REDACTED:EMAIL]' });
    const issues = await call(cp.url, 'GET', '/v1/telemetry/query/errors/issues?limit=500', { token: operator });
    const ours = issues.body.data.filter((i: { title: string }) => i.title.endsWith('id probe failed'));
    expect(ours).toHaveLength(2);
    const events = await Promise.all(ours.map((i: { id: string }) => call(cp.url, 'GET', `/v1/telemetry/query/errors/events?issueId=${i.id}`, { token: operator })));
    const rules = events.flatMap((e) => e.body.data.map((ev: { context: { ruleId: string } }) => ev.context.ruleId)).sort();
    expect(rules).toEqual(['pol_ingested', 'pol_shipped']);
    for (const text of [logs.text, issues.text, ...events.map((e) => e.text)]) {
      expect(text).not.toContain(agent);
      expect(text).not.toContain('ana@example.org');
    }
  });

  it('the ship route refuses a malformed batch, a PAT and a tenant the token does not cover, storing nothing', async () => {
    const log = { tenant_id: 'default', id: newId('log'), timestamp: new Date().toISOString(), level: 'info', message: 'must not be stored', agent_id: 'tel-refused', trace_id: 't', attributes: {} };
    // A count where samples belong: the whole batch is refused, its good log too.
    const bad = batchOf({ logs: [log], metrics: [{ tenant_id: 'default', agent_id: 'tel-refused', second: now(), slot: [3, 1, null, null, null, null] }] });
    expectEnvelope(await ship(sidecarToken, bad), 400, 'invalid_request');
    expectEnvelope(await ship(sidecarToken, { ...batchOf({ logs: [log] }), format: 'aduana-telemetry-batch/0' }), 400, 'invalid_request');
    expectEnvelope(await ship(sidecarToken, batchOf({ logs: [{ ...log, agent_id: 'bad\u0001agent' }] })), 400, 'invalid_request');
    expectEnvelope(await ship(admin, batchOf({ logs: [log] })), 401, 'authentication_error');
    expectEnvelope(await ship(otherSidecarToken, batchOf({ logs: [log] })), 403, 'permission_denied');
    const logs = await call(cp.url, 'GET', '/v1/telemetry/query/logs?agentId=tel-refused', { token: operator });
    expect(logs.body).toEqual({ data: [], total: 0, cursor: null });
    expect((await stats(cp.url, 'decision.latency_ms', 'tel-refused')).body.series).toEqual([]);
  });
});

describe('retention at the control plane', () => {
  it('prune deletes what is older than the cutoff and keeps the rest', async () => {
    const pool = openPool(databaseUrl, DEFAULT_DATABASE_OPTIONS);
    try {
      const store = new PgTelemetryStore(pool);
      const old = Date.now() - 10 * 86_400_000;
      const at = (ms: number) => new Date(ms).toISOString();
      const item = (ms: number, tag: string) => ({
        metrics: [{ tenant_id: 'default', agent_id: `tel-prune-${tag}`, second: Math.floor(ms / 1000), slot: [[1], 1, null, null, null, null] }],
        logs: [{ tenant_id: 'default', id: newId('log'), timestamp: at(ms), level: 'info' as const, message: 'prune probe', agent_id: `tel-prune-${tag}`, trace_id: 't', attributes: {} }],
        errors: [{ tenant_id: 'default', id: newId('err'), timestamp: at(ms), level: 'error', message: `prune probe ${tag}`, agent_id: `tel-prune-${tag}`, rule_id: '', trace_id: 't' }],
      });
      await store.storeItems(item(old, 'old'));
      await store.storeItems(item(Date.now(), 'new'));
      const removed = await store.prune(Date.now() - 7 * 86_400_000, 1);
      expect(removed).toBeGreaterThanOrEqual(4);
      expect((await store.logs('default', { agentId: 'tel-prune-old', limit: 10 })).total).toBe(0);
      expect((await store.logs('default', { agentId: 'tel-prune-new', limit: 10 })).total).toBe(1);
      expect((await store.stats('default', 'decision.count', Math.floor(old / 1000) - 1, Math.floor(old / 1000) + 1, 'tel-prune-old')).series).toEqual([]);
      const titles = (await store.issues('default', 500)).data.map((i) => i.title);
      expect(titles).toContain('prune probe new');
      expect(titles).not.toContain('prune probe old');
    } finally {
      await pool.end();
    }
  });
});

describe('the query routes at the control plane', () => {
  it('answer bad input as the sidecar does (400), and another tenant with 403', async () => {
    const cases: [string, number, string][] = [
      [`/v1/telemetry/query/stats?metric=nope&from=${now() - 60}&to=${now()}`, 400, 'invalid_request'],
      [`/v1/telemetry/query/stats?metric=decision.count&from=${now()}&to=${now() - 60}`, 400, 'invalid_request'],
      [`/v1/telemetry/query/stats?metric=decision.count&from=1&to=${now()}`, 400, 'invalid_request'],
      ['/v1/telemetry/query/logs?limit=1.5', 400, 'invalid_request'],
      ['/v1/telemetry/query/logs?agentId=a%01b', 400, 'invalid_request'],
      ['/v1/telemetry/query/logs?cursor=not-a-cursor', 400, 'invalid_request'],
      ['/v1/telemetry/query/errors/issues?limit=0', 400, 'invalid_request'],
      ['/v1/telemetry/query/errors/events?issueId=iss_nope', 400, 'invalid_request'],
      ['/v1/telemetry/query/logs?tenantId=other', 403, 'permission_denied'],
      ['/v1/telemetry/query/errors/issues?tenant_id=other', 403, 'permission_denied'],
    ];
    for (const [path, status, type] of cases) {
      const atCp = expectEnvelope(await call(cp.url, 'GET', path, { token: operator }), status, type);
      const atSidecar = expectEnvelope(await call(a.url, 'GET', path, { token: operator }), status, type);
      // One validation for both (the retention bound names a second, which may tick between the two calls).
      expect(atCp.message.replace(/\d{9,}/g, 'N'), path).toBe(atSidecar.message.replace(/\d{9,}/g, 'N'));
    }
    expectEnvelope(await call(cp.url, 'GET', '/v1/telemetry/query/logs'), 401, 'authentication_error');
  });

  it('/status says what the control plane is; ingest there stores the log directly, redacted', async () => {
    const status = await call(cp.url, 'GET', '/v1/telemetry/status', { token: operator });
    expect(status.status, status.text).toBe(200);
    expect(status.body).toMatchObject({ mode: 'fleet-control-plane', providers: { logs_provider: 'DISABLED', errors_provider: 'DISABLED' }, sanitization: 'pii-redacted', retention_days: 7, queues: {} });
    const r = await ingest(cp.url, { agentId: 'tel-cp', traceId: 'trace-cp-1', log: { level: 'fatal', message: 'disk full, call +55 11 91234-5678' } });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ status: 'ingested', traceId: 'trace-cp-1', providers: [] });
    const logs = await call(cp.url, 'GET', '/v1/telemetry/query/logs?agentId=tel-cp', { token: operator });
    expect(logs.body.total).toBe(1);
    expect(logs.body.data[0].message).not.toContain('91234-5678');
    expect(logs.body.data[0]).toMatchObject({ level: 'fatal', traceId: 'trace-cp-1' });
    const issues = await call(cp.url, 'GET', '/v1/telemetry/query/errors/issues?limit=500', { token: operator });
    expect(issues.body.data.some((i: { agentId: string; level: string }) => i.agentId === 'tel-cp' && i.level === 'fatal')).toBe(true);
    expectEnvelope(await ingest(cp.url, { tenantId: 'other', log: { level: 'info', message: 'x' } }), 403, 'permission_denied');
  });
});

describe('telemetry while the control plane is away', () => {
  it('queues at the sidecar and reaches the control plane once it is back', async () => {
    const cpPort = Number(new URL(cp.url).port);
    let relay = await startTcpRelay(cpPort);
    const away = await startSidecar(relay.url, sidecarToken, tmp('sidecar-away'), FAST);
    try {
      await vi.waitFor(async () => expect((await decide(away.url, 'warm-up')).status).toBe(200), { timeout: 10_000, interval: 50 });
      await relay.close();
      expect((await ingest(away.url, { agentId: 'tel-away', log: { level: 'error', message: 'written while away' } })).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await decide(away.url, 'tel-away')).status).toBe(200);
      const health = async () => (await call(away.url, 'GET', '/health')).body.fleet.telemetry;
      await vi.waitFor(async () => expect((await health()).failures).toBeGreaterThanOrEqual(2), { timeout: 10_000, interval: 50 });
      expect((await health()).queued).toBeGreaterThanOrEqual(2);
      expect((await call(cp.url, 'GET', '/v1/telemetry/query/logs?agentId=tel-away', { token: operator })).body.total).toBe(0);
      relay = await startTcpRelay(cpPort, relay.port);
      await vi.waitFor(
        async () => {
          expect((await call(cp.url, 'GET', '/v1/telemetry/query/logs?agentId=tel-away', { token: operator })).body.total).toBe(1);
          const count = await stats(cp.url, 'decision.count', 'tel-away');
          expect(count.body.series.reduce((n: number, p: { value: number }) => n + p.value, 0)).toBe(3);
        },
        { timeout: 10_000, interval: 50 },
      );
      const issues = await call(cp.url, 'GET', '/v1/telemetry/query/errors/issues?limit=500', { token: operator });
      expect(issues.body.data.find((i: { title: string }) => i.title === 'written while away')?.count).toBe(1);
      await vi.waitFor(async () => expect(await health()).toMatchObject({ queued: 0, failures: 0, dropped: { queue_full: 0, rejected: 0 } }), { timeout: 5000, interval: 50 });
    } finally {
      await away.close();
      await relay.close();
    }
  });

  it('a sidecar stopped with telemetry queued ships it after its restart', async () => {
    const cpPort = Number(new URL(cp.url).port);
    const relay = await startTcpRelay(cpPort);
    const dir = tmp('sidecar-restart');
    const first = await startSidecar(relay.url, sidecarToken, dir, FAST);
    try {
      await vi.waitFor(async () => expect((await decide(first.url, 'warm-up')).status).toBe(200), { timeout: 10_000, interval: 50 });
      await relay.close();
      expect((await ingest(first.url, { agentId: 'tel-restart', log: { level: 'info', message: 'queued across a restart' } })).status).toBe(200);
      await vi.waitFor(async () => expect((await call(first.url, 'GET', '/health')).body.fleet.telemetry.failures).toBeGreaterThanOrEqual(1), { timeout: 10_000, interval: 50 });
    } finally {
      await first.stop();
    }
    // Back on the same data dir, now pointing straight at the control plane.
    const second = await startSidecar(cp.url, sidecarToken, dir, FAST);
    try {
      await vi.waitFor(async () => expect((await call(cp.url, 'GET', '/v1/telemetry/query/logs?agentId=tel-restart', { token: operator })).body.total).toBe(1), { timeout: 10_000, interval: 50 });
    } finally {
      await second.stop();
    }
  });
});
