import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '@aduana/shared';
import { startLocalPostgres, type LocalPostgres } from '@aduana/shared/local-servers';
import { loadGatewayConfig } from '../../src/config.js';
import { startControlPlane, type RunningControlPlane } from '../../src/control-plane.js';
import { openPostgresRepositories } from '../../src/fleet/postgres/open-postgres-repositories.js';
import { call, expectEnvelope, type CallResult } from '../helpers/start-test-gateway.js';
import { startSidecar, type TestSidecar } from '../helpers/fleet-control-plane.js';
import { startTcpRelay } from '../helpers/fleet/tcp-relay.js';
import { MockUpstream } from '../helpers/mock-upstream.js';

/**
 * Agents, held decisions and the console at the control plane (docs/fleet.md, "Agents and decisions"): a real
 * PostgreSQL, two control-plane replicas on it and a real sidecar, all in this process, talking HTTP on loopback.
 */

const PASSWORD = 'control plane console 123';
let pg: LocalPostgres;
let databaseUrl = '';
const dirs: string[] = [];
let cp: RunningControlPlane;
let cp2: RunningControlPlane;
let sidecar: TestSidecar;
let mock: MockUpstream;
let sidecarToken = '';
let admin = '';
let operator = '';

const tmp = (name: string): string => {
  const d = mkdtempSync(join(tmpdir(), `aduana-cpad-${name}-`));
  dirs.push(d);
  return d;
};

const replica = (name: string): Promise<RunningControlPlane> =>
  startControlPlane({
    config: loadGatewayConfig({}, { databaseUrl, dataDir: tmp(name), port: 0, authPort: 0, quietBootstrap: true, logLevel: 'silent', heartbeatIntervalS: 30 }),
    logger: createLogger(name, { level: 'silent' }),
  });

const decide = (base: string, agent: string, text: string): Promise<CallResult> =>
  call(base, 'POST', '/v1/decide', { token: operator, body: { agent_id: agent, action: { type: 'chat', payload: { text } } } });

beforeAll(async () => {
  pg = await startLocalPostgres();
  databaseUrl = await pg.createDatabase('cp_agents_decisions');
  cp = await replica('control-a');
  admin = cp.bootstrapToken as string;
  expect(admin).toMatch(/^adu_pat_/);
  cp2 = await replica('control-b');
  const repos = await openPostgresRepositories(databaseUrl, { sessionTtlMs: 3_600_000 });
  sidecarToken = (await repos.sidecarTokens.create('cpad', null)).token;
  // Enterprise: the plan's rate limit never interferes with the polling below.
  expect(await repos.tenants.setPlan('default', 'enterprise', 'test')).toBeDefined();
  await repos.close();
  const op = await call(cp.authUrl, 'POST', '/token', { token: admin, body: { name: 'cpad operator', role: 'operator' } });
  expect(op.status, op.text).toBe(200);
  operator = op.body.token;
  const hold = await call(cp.url, 'POST', '/v1/policies', { token: admin, body: { name: 'hold', type: 'content_filter', risk: 40, rules: { patterns: ['wire money'], action: 'REQUIRE_APPROVAL' } } });
  expect(hold.status, hold.text).toBe(200);
  // The sidecar reports its agents every 100 ms here (FLEET_AGENT_REPORT_MS).
  mock = await new MockUpstream().start();
  sidecar = await startSidecar(cp.url, sidecarToken, tmp('sidecar'), { fleetAgentReportMs: 100, shipLingerMs: 0, upstreamBaseUrl: mock.url });
  await vi.waitFor(async () => expect((await decide(sidecar.url, 'warm-up', 'hello')).body?.envelope?.execution_status).toBe('ALLOW'), { timeout: 10_000, interval: 50 });
}, 120_000);

afterAll(async () => {
  await sidecar?.close();
  await mock?.close();
  await cp2?.close();
  await cp?.close();
  await pg?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}, 60_000);

describe('agents at the control plane', () => {
  it('an agent suspended at the control plane is DENY (agent_suspended) at the sidecar, and ALLOW again after resume', async () => {
    const reg = await call(cp.url, 'POST', '/v1/agents/register', { token: admin, body: { agent_id: 'bot-s', name: 'Bot S' } });
    expect(reg.status, reg.text).toBe(201);
    expect(reg.body).toMatchObject({ agent_id: 'bot-s', name: 'Bot S', status: 'ACTIVE', created: true });
    await vi.waitFor(async () => expect((await decide(sidecar.url, 'bot-s', 'hello')).body.envelope.execution_status).toBe('ALLOW'), { timeout: 5000, interval: 25 });

    expectEnvelope(await call(cp.url, 'POST', '/v1/agents/bot-s/suspend', { token: operator }), 403, 'permission_denied');
    expectEnvelope(await call(cp.url, 'POST', '/v1/agents/nobody/suspend', { token: admin }), 404, 'not_found');
    const suspended = await call(cp.url, 'POST', '/v1/agents/bot-s/suspend', { token: admin });
    expect(suspended.status, suspended.text).toBe(200);
    expect(suspended.body.status).toBe('SUSPENDED');
    await vi.waitFor(
      async () => {
        const d = await decide(sidecar.url, 'bot-s', 'hello');
        expect(d.body.envelope.execution_status).toBe('DENY');
        expect(d.headers['x-svc-rule']).toBe('agent_suspended');
      },
      { timeout: 2000, interval: 25 },
    );
    // Listed by status at the control plane, with the total.
    const listed = await call(cp.url, 'GET', '/v1/agents?status=SUSPENDED', { token: operator });
    expect(listed.body).toMatchObject({ total: 1, cursor: null });
    expect(listed.body.data.map((a: { agent_id: string }) => a.agent_id)).toEqual(['bot-s']);

    // At the sidecar, suspend and resume are still the control plane's: 409 naming it.
    const refused = expectEnvelope(await call(sidecar.url, 'POST', '/v1/agents/bot-s/resume', { token: admin }), 409, 'invalid_request');
    expect(refused.message).toContain(cp.url);
    expect(refused.message).toMatch(/suspend and resume/);

    const resumed = await call(cp.url, 'POST', '/v1/agents/bot-s/resume', { token: admin });
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe('ACTIVE');
    await vi.waitFor(async () => expect((await decide(sidecar.url, 'bot-s', 'hello')).body.envelope.execution_status).toBe('ALLOW'), { timeout: 2000, interval: 25 });
  });

  it('a heartbeat at the sidecar reaches the control plane: last_seen and ACTIVE, moving forward with later heartbeats', async () => {
    const before = Date.now();
    const hb = await call(sidecar.url, 'POST', '/v1/heartbeat', { token: operator, body: { agent_id: 'hb-1', status: 'busy' } });
    expect(hb.status, hb.text).toBe(200);
    let first = '';
    await vi.waitFor(
      async () => {
        const a = await call(cp.url, 'GET', '/v1/agents/hb-1', { token: operator });
        expect(a.status, a.text).toBe(200);
        expect(a.body).toMatchObject({ agent_id: 'hb-1', status: 'ACTIVE', heartbeat: { reported_status: 'busy' } });
        expect(Date.parse(a.body.last_seen)).toBeGreaterThanOrEqual(before - 1);
        first = a.body.last_seen;
      },
      { timeout: 5000, interval: 50 },
    );
    await new Promise((r) => setTimeout(r, 20));
    expect((await call(sidecar.url, 'POST', '/v1/heartbeat', { token: operator, body: { agent_id: 'hb-1', status: 'idle' } })).status).toBe(200);
    await vi.waitFor(
      async () => {
        const a = await call(cp.url, 'GET', '/v1/agents/hb-1', { token: operator });
        expect(Date.parse(a.body.last_seen)).toBeGreaterThan(Date.parse(first));
        expect(a.body.heartbeat.reported_status).toBe('idle');
      },
      { timeout: 5000, interval: 50 },
    );
  });

  it('an agent first used at the sidecar appears at the control plane; a registration made at the control plane wins', async () => {
    expect((await decide(sidecar.url, 'first-use-1', 'hello')).body.envelope.execution_status).toBe('ALLOW');
    await vi.waitFor(
      async () => {
        const page = await call(cp.url, 'GET', '/v1/agents?limit=500', { token: operator });
        expect(page.body.data.map((a: { agent_id: string }) => a.agent_id)).toContain('first-use-1');
      },
      { timeout: 5000, interval: 50 },
    );
    const fu = await call(cp.url, 'GET', '/v1/agents/first-use-1', { token: operator });
    expect(fu.body).toMatchObject({ agent_id: 'first-use-1', name: 'first-use-1', status: 'ACTIVE' });

    expect((await call(cp.url, 'POST', '/v1/agents/register', { token: admin, body: { agent_id: 'cp-wins', name: 'Control name' } })).status).toBe(201);
    await vi.waitFor(async () => expect((await call(sidecar.url, 'GET', '/v1/agents/cp-wins', { token: operator })).body?.name).toBe('Control name'), { timeout: 5000, interval: 25 });
    // Renamed at the sidecar (runtime traffic may do that there) and reported: the control plane keeps its own.
    expect((await call(sidecar.url, 'POST', '/v1/agents', { token: operator, body: { agent_id: 'cp-wins', name: 'Sidecar name' } })).status).toBe(200);
    const health = async () => (await call(sidecar.url, 'GET', '/health')).body.fleet.agent_reports.reported as number;
    const reported = await health();
    await vi.waitFor(async () => expect(await health()).toBeGreaterThan(reported), { timeout: 5000, interval: 50 });
    expect((await call(cp.url, 'GET', '/v1/agents/cp-wins', { token: operator })).body.name).toBe('Control name');
  });

  it('POST /v1/fleet/agents needs a sidecar token, and a malformed report writes nothing', async () => {
    const report = { format: 'aduana-agent-report/1', tenants: [{ tenant_id: 'default', agents: [{ agent_id: 'forged', name: 'x', policy_pack: null, risk_budget: null, metadata: null, created_at: 1, last_seen: 1, heartbeat_base: 1, reported_status: '', risk_score: 0 }] }] };
    expectEnvelope(await call(cp.url, 'POST', '/v1/fleet/agents', { token: admin, body: report }), 401, 'authentication_error');
    const bad = { ...report, tenants: [report.tenants[0], { tenant_id: 'default', agents: [{ agent_id: 'half' }] }] };
    expectEnvelope(await call(cp.url, 'POST', '/v1/fleet/agents', { token: sidecarToken, body: bad }), 400, 'invalid_request');
    expectEnvelope(await call(cp.url, 'GET', '/v1/agents/forged', { token: operator }), 404, 'not_found');
  });
});

describe('agent reports while the control plane is away', () => {
  it('queue at the sidecar and reach the control plane once it is back', async () => {
    const cpPort = Number(new URL(cp.url).port);
    let relay = await startTcpRelay(cpPort);
    const away = await startSidecar(relay.url, sidecarToken, tmp('sidecar-away'), { fleetAgentReportMs: 100 });
    try {
      await vi.waitFor(async () => expect((await decide(away.url, 'warm-up', 'hello')).status).toBe(200), { timeout: 10_000, interval: 50 });
      await relay.close();
      expect((await call(away.url, 'POST', '/v1/heartbeat', { token: operator, body: { agent_id: 'away-1' } })).status).toBe(200);
      const failures = async () => (await call(away.url, 'GET', '/health')).body.fleet.agent_reports.failures as number;
      await vi.waitFor(async () => expect(await failures()).toBeGreaterThanOrEqual(2), { timeout: 5000, interval: 50 });
      expectEnvelope(await call(cp.url, 'GET', '/v1/agents/away-1', { token: operator }), 404, 'not_found');
      relay = await startTcpRelay(cpPort, relay.port);
      await vi.waitFor(async () => expect((await call(cp.url, 'GET', '/v1/agents/away-1', { token: operator })).body).toMatchObject({ agent_id: 'away-1', status: 'ACTIVE' }), { timeout: 5000, interval: 50 });
      expect(await failures()).toBe(0);
    } finally {
      await away.close();
      await relay.close();
    }
  });
});

describe('held decisions at the control plane', () => {
  const shippedAt = async (id: string): Promise<CallResult> => {
    let r: CallResult | undefined;
    await vi.waitFor(
      async () => {
        r = await call(cp.url, 'GET', `/admin/decisions/${id}`, { token: operator });
        expect(r.status, r.text).toBe(200);
      },
      { timeout: 5000, interval: 25 },
    );
    return r as CallResult;
  };

  it('a held decision made at a sidecar is resolved once at the control plane; the sidecar applies it and chains decision.resolved', async () => {
    const held = (await decide(sidecar.url, 'payer', 'please wire money')).body.envelope;
    expect(held.execution_status).toBe('REQUIRE_APPROVAL');
    const allowed = (await decide(sidecar.url, 'payer', 'good morning')).body.envelope.decision_id as string;

    const shipped = await shippedAt(held.decision_id);
    expect(shipped.body).toMatchObject({ decision_id: held.decision_id, tenant_id: 'default', agent_id: 'payer', execution_status: 'REQUIRE_APPROVAL', resolution: null });
    const list = await call(cp.url, 'GET', '/admin/decisions?limit=10', { token: operator });
    expect(list.body.data.map((d: { decision_id: string }) => d.decision_id)).toContain(held.decision_id);
    await shippedAt(allowed);

    const resolve = (base: string, id: string, token: string, body: unknown) => call(base, 'POST', `/admin/decisions/${id}/resolve`, { token, body });
    expectEnvelope(await resolve(cp.url, held.decision_id, operator, { resolution: 'APPROVED' }), 403, 'permission_denied');
    expectEnvelope(await resolve(cp.url, held.decision_id, admin, { resolution: 'MAYBE' }), 400, 'invalid_request');
    expectEnvelope(await resolve(cp.url, held.decision_id, admin, {}), 400, 'invalid_request');
    expect((await call(cp.url, 'GET', `/admin/decisions/${held.decision_id}`, { token: operator })).body.resolution).toBeNull();
    expectEnvelope(await resolve(cp.url, 'dec_unknown', admin, { resolution: 'APPROVED' }), 404, 'not_found');
    expectEnvelope(await resolve(cp.url, allowed, admin, { resolution: 'APPROVED' }), 409, 'invalid_request');
    // Not at the sidecar: 409 naming the control plane.
    expect(expectEnvelope(await resolve(sidecar.url, held.decision_id, admin, { resolution: 'APPROVED' }), 409, 'invalid_request').message).toContain(cp.url);

    const ok = await resolve(cp.url, held.decision_id, admin, { resolution: 'APPROVED', note: 'checked' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.resolution).toMatchObject({ status: 'APPROVED', note: 'checked' });
    expectEnvelope(await resolve(cp.url, held.decision_id, admin, { resolution: 'REJECTED' }), 409, 'invalid_request');
    expectEnvelope(await resolve(cp2.url, held.decision_id, admin, { resolution: 'REJECTED' }), 409, 'invalid_request');

    // The sidecar that made it sees the resolution, and its own chain records it once; the shipment brings that back.
    // The control plane chained it in its own chain when it was made.
    await vi.waitFor(
      async () => expect((await call(sidecar.url, 'GET', `/admin/decisions/${held.decision_id}`, { token: operator })).body.resolution).toMatchObject({ status: 'APPROVED', note: 'checked', resolved_by: ok.body.resolution.resolved_by }),
      { timeout: 5000, interval: 25 },
    );
    await vi.waitFor(
      async () => {
        const events = await call(cp.url, 'GET', '/v1/events?event_type=decision.resolved&limit=100', { token: operator });
        const mine = events.body.events.filter((e: { payload: { decision_id: string } }) => e.payload.decision_id === held.decision_id);
        const own = (e: { chain_id: string }) => e.chain_id === 'control-plane/default';
        expect(mine.filter(own)).toHaveLength(1);
        expect(mine.filter((e: { chain_id: string }) => !own(e))).toHaveLength(1);
        for (const e of mine) expect(e.payload.resolution).toMatchObject({ status: 'APPROVED' });
      },
      { timeout: 5000, interval: 50 },
    );
    expect((await call(sidecar.url, 'GET', '/health')).body.fleet.resolutions_applied).toBe(1);
  });

  it('concurrent resolves on two control-plane replicas: exactly one wins', async () => {
    const id = (await decide(sidecar.url, 'payer', 'wire money twice')).body.envelope.decision_id as string;
    await shippedAt(id);
    const answers = await Promise.all([
      call(cp.url, 'POST', `/admin/decisions/${id}/resolve`, { token: admin, body: { resolution: 'APPROVED' } }),
      call(cp2.url, 'POST', `/admin/decisions/${id}/resolve`, { token: admin, body: { resolution: 'REJECTED' } }),
      call(cp.url, 'POST', `/admin/decisions/${id}/resolve`, { token: admin, body: { resolution: 'REJECTED' } }),
      call(cp2.url, 'POST', `/admin/decisions/${id}/resolve`, { token: admin, body: { resolution: 'APPROVED' } }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409]);
    const winner = answers.find((a) => a.status === 200)!.body.resolution.status;
    expect((await call(cp2.url, 'GET', `/admin/decisions/${id}`, { token: operator })).body.resolution.status).toBe(winner);
    await vi.waitFor(async () => expect((await call(sidecar.url, 'GET', `/admin/decisions/${id}`, { token: operator })).body.resolution?.status).toBe(winner), { timeout: 5000, interval: 25 });
  });
});

describe('the console at the control plane', () => {
  it('lists the decisions the sidecars shipped and the agents, and an admin resolves a held decision there', async () => {
    const created = await call(cp.url, 'POST', '/admin/users', { token: admin, body: { email: 'admin@cpad.example', name: 'Admin', role: 'admin', password: PASSWORD } });
    expect(created.status, created.text).toBe(201);
    const id = (await decide(sidecar.url, 'console-agent', 'wire money for the console')).body.envelope.decision_id as string;
    await vi.waitFor(async () => expect((await call(cp.url, 'GET', `/admin/decisions/${id}`, { token: operator })).status).toBe(200), { timeout: 5000, interval: 25 });

    const login = await call(cp.authUrl, 'POST', '/login', { body: { email: 'admin@cpad.example', password: PASSWORD } });
    expect(login.status, login.text).toBe(200);
    const cookie = `aduana_session=${login.body.session_token}`;
    const page = await call(cp.authUrl, 'GET', '/console/decisions?since=all', { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`data-decision="${id}"`);
    expect(page.text).toContain(`data-resolve="APPROVED"`);
    const agents = await call(cp.authUrl, 'GET', '/console/agents', { headers: { cookie } });
    expect(agents.status).toBe(200);
    expect(agents.text).toContain('console-agent');
    expect(agents.text).toContain('bot-s');
    expect((await call(cp.authUrl, 'GET', '/console', { headers: { cookie } })).status).toBe(200);
    expect((await call(cp.authUrl, 'GET', '/console/ledger', { headers: { cookie } })).status).toBe(200);

    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] as string;
    const form = { 'content-type': 'application/x-www-form-urlencoded', cookie };
    const posted = await call(cp.authUrl, 'POST', `/console/decisions/${id}/resolve`, { rawBody: `csrf=${encodeURIComponent(csrf)}&resolution=REJECTED&note=from+the+console`, headers: form });
    expect(posted.status, posted.text).toBe(303);
    expect((await call(cp.url, 'GET', `/admin/decisions/${id}`, { token: operator })).body.resolution).toMatchObject({ status: 'REJECTED', note: 'from the console' });
    // The same code path as the API: a second resolve from the console is 409.
    expectEnvelope(await call(cp.authUrl, 'POST', `/console/decisions/${id}/resolve`, { rawBody: `csrf=${encodeURIComponent(csrf)}&resolution=APPROVED`, headers: form }), 409, 'invalid_request');
    await vi.waitFor(async () => expect((await call(sidecar.url, 'GET', `/admin/decisions/${id}`, { token: operator })).body.resolution?.status).toBe('REJECTED'), { timeout: 5000, interval: 25 });
  });

  it('an admin creates a token on the console (PostgreSQL): it works at the control plane, its other replica and the sidecar; revoked there, all three refuse it', async () => {
    // Self-service tokens are for tenants below the enterprise plan (docs/console.md, "Tokens and users").
    const planned = await call(cp.url, 'PUT', '/admin/tenants/default/plan', { token: admin, body: { plan: 'professional' } });
    expect(planned.status, planned.text).toBe(200);
    const created = await call(cp.url, 'POST', '/admin/users', { token: admin, body: { email: 'tokens@cpad.example', name: 'Tokens admin', role: 'admin', password: PASSWORD } });
    expect(created.status, created.text).toBe(201);
    const login = await call(cp.authUrl, 'POST', '/login', { body: { email: 'tokens@cpad.example', password: PASSWORD } });
    const cookie = `aduana_session=${login.body.session_token}`;
    const page = await call(cp.authUrl, 'GET', '/console/tokens', { headers: { cookie } });
    expect(page.status).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] as string;
    const form = { 'content-type': 'application/x-www-form-urlencoded', cookie };
    const posted = await call(cp.authUrl, 'POST', '/console/tokens', { rawBody: `csrf=${encodeURIComponent(csrf)}&once=${/name="once" value="([^"]+)"/.exec(page.text)?.[1]}&name=cp+console&role=operator&expires_in_days=30`, headers: form });
    expect(posted.status, posted.text).toBe(200);
    expect(posted.headers['cache-control']).toBe('no-store');
    const secret = /id="new-token" class="mono" readonly value="([^"]+)"/.exec(posted.text)?.[1] as string;
    expect(secret).toMatch(/^adu_pat_/);
    const tokenId = (await call(cp.authUrl, 'GET', '/verify', { token: secret })).body.tokenId as string;
    expect(tokenId).toMatch(/^tok_/);
    const listed = await call(cp.authUrl, 'GET', '/console/tokens', { headers: { cookie } });
    expect(listed.text).toContain(`data-token="${tokenId}"`);
    expect(listed.text).not.toContain(secret);
    for (const base of [cp.url, cp2.url, sidecar.url]) {
      await vi.waitFor(async () => expect((await call(base, 'GET', '/v1/policies', { token: secret })).status).toBe(200), { timeout: 5000, interval: 25 });
    }

    const revoked = await call(cp.authUrl, 'POST', `/console/tokens/${tokenId}/revoke`, { rawBody: `csrf=${encodeURIComponent(csrf)}`, headers: form });
    expect(revoked.status, revoked.text).toBe(303);
    expect(expectEnvelope(await call(cp.url, 'GET', '/v1/policies', { token: secret }), 401, 'authentication_error').message).toBe('token has been revoked');
    for (const base of [cp2.url, sidecar.url]) {
      await vi.waitFor(async () => expect((await call(base, 'GET', '/v1/policies', { token: secret })).status).toBe(401), { timeout: 5000, interval: 25 });
    }
  });
});

describe('working the lists at the control plane', () => {
  it('the decisions list filters, searches and pages by cursor over the shipped decisions; the CSV holds the same rows; the ledger browser points to the per-chain API', async () => {
    const made: { id: string; agent: string; verdict: string }[] = [];
    for (let i = 0; i < 5; i++) {
      const agent = i % 2 ? 'lists-odd' : 'lists-even';
      const r = await decide(sidecar.url, agent, i === 2 ? 'wire money for the lists' : `hello ${i}`);
      expect(r.status, r.text).toBe(200);
      made.unshift({ id: r.body.envelope.decision_id, agent, verdict: r.body.envelope.execution_status });
    }
    await vi.waitFor(async () => expect((await call(cp.url, 'GET', `/admin/decisions/${made[0]!.id}`, { token: operator })).status).toBe(200), { timeout: 5000, interval: 25 });
    const created = await call(cp.url, 'POST', '/admin/users', { token: admin, body: { email: 'lists@cpad.example', name: 'Lists', role: 'viewer', password: PASSWORD } });
    expect(created.status, created.text).toBe(201);
    const login = await call(cp.authUrl, 'POST', '/login', { body: { email: 'lists@cpad.example', password: PASSWORD } });
    const cookie = `aduana_session=${login.body.session_token}`;
    const ids = async (query: string): Promise<string[]> => {
      const r = await call(cp.authUrl, 'GET', `/console/decisions?${query}`, { headers: { cookie } });
      expect(r.status, r.text).toBe(200);
      return [...r.text.matchAll(/<tr data-decision="([^"]+)"/g)].map((m) => m[1]!);
    };
    const mine = (list: string[]) => list.filter((id) => made.some((d) => d.id === id));
    expect(mine(await ids('since=all&agent=lists-odd&limit=200'))).toEqual(made.filter((d) => d.agent === 'lists-odd').map((d) => d.id));
    expect(await ids('since=all&rule=hold&limit=200')).toContain(made[2]!.id);
    expect(mine(await ids('since=all&rule=hold&limit=200'))).toEqual([made[2]!.id]);
    expect(await ids(`since=all&q=${made[3]!.id}`)).toEqual([made[3]!.id]);
    expect(mine(await ids('since=all&q=lists-&limit=200'))).toEqual(made.map((d) => d.id));
    // Cursor pages of two: every decision of the agents once, newest first.
    const walked: string[] = [];
    let query = 'since=all&q=lists-&limit=2';
    for (;;) {
      const r = await call(cp.authUrl, 'GET', `/console/decisions?${query}`, { headers: { cookie } });
      walked.push(...[...r.text.matchAll(/<tr data-decision="([^"]+)"/g)].map((m) => m[1]!));
      const older = /<a id="older" rel="next" href="\/console\/decisions\?([^"]+)"/.exec(r.text);
      if (!older) break;
      query = older[1]!.replace(/&amp;/g, '&');
    }
    expect(walked).toEqual(made.map((d) => d.id));
    const csv = await call(cp.authUrl, 'GET', '/console/decisions.csv?since=all&agent=lists-even', { headers: { cookie } });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.text.split('\r\n').slice(1, -1).map((l) => l.split(',')[0])).toEqual(made.filter((d) => d.agent === 'lists-even').map((d) => d.id));
    expectEnvelope(await call(cp.authUrl, 'GET', '/console/decisions?verdict=SOMETIMES', { headers: { cookie } }), 400, 'invalid_request');
    // The chains are per sidecar here: the ledger pages say where to read them.
    expect((await call(cp.authUrl, 'GET', '/console/ledger', { headers: { cookie } })).text).toContain('id="entries-per-chain"');
    expect((await call(cp.authUrl, 'GET', '/console/ledger/checkpoints', { headers: { cookie } })).text).toContain('id="checkpoints-per-chain"');
    expectEnvelope(await call(cp.authUrl, 'GET', '/console/ledger/entries/1', { headers: { cookie } }), 404, 'not_found');
  });
});

describe('costs at the control plane', () => {
  it("the costs page sums the sidecars' proxied calls by model and agent, an unpriced model's apart", async () => {
    const created = await call(cp.url, 'POST', '/admin/users', { token: admin, body: { email: 'costs-viewer@cpad.example', name: 'Costs viewer', role: 'viewer', password: PASSWORD } });
    expect(created.status, created.text).toBe(201);
    const ids: string[] = [];
    for (const [agent, model, input, output] of [['cost-a', 'gpt-4o-mini', 1000, 200], ['cost-b', 'local-llama', 3000, 400]] as const) {
      mock.next({ usage: { prompt_tokens: input, completion_tokens: output } });
      const r = await call(sidecar.url, 'POST', '/v1/proxy/chat/completions', { token: operator, headers: { 'x-svc-agent-id': agent }, body: { model, messages: [{ role: 'user', content: 'hi' }] } });
      expect(r.status, r.text).toBe(200);
      ids.push(r.headers['x-svc-trace-id'] as string);
    }
    for (const id of ids) await vi.waitFor(async () => expect((await call(cp.url, 'GET', `/admin/decisions/${id}`, { token: operator })).status).toBe(200), { timeout: 5000, interval: 25 });
    const login = await call(cp.authUrl, 'POST', '/login', { body: { email: 'costs-viewer@cpad.example', password: PASSWORD } });
    expect(login.status, login.text).toBe(200);
    const page = await call(cp.authUrl, 'GET', '/console/costs', { headers: { cookie: `aduana_session=${login.body.session_token}` } });
    expect(page.status).toBe(200);
    const row = (table: string, key: string) => new RegExp(`<table id="${table}">.*?<tr data-key="${key}">(.*?)</tr>`, 's').exec(page.text)?.[1] ?? '';
    const cost = ((1000 * 0.000825 + 200 * 0.0033) / 1000).toFixed(6);
    expect(row('costs-by-model', 'gpt-4o-mini')).toContain(`<td data-col="in">1,000</td><td data-col="out">200</td><td data-col="brl">${cost}</td>`);
    expect(row('costs-by-model', 'local-llama')).toContain('<td data-col="in">3,000</td><td data-col="out">400</td><td data-col="brl"><span class="muted">unpriced</span></td><td data-col="unpriced">1</td>');
    expect(row('costs-by-agent', 'cost-a')).toContain(`<td data-col="brl">${cost}</td>`);
    expect(page.text).toMatch(/id="stat-unpriced">1</);
  });
});

describe('events ingested at a sidecar, read at the control plane', () => {
  it('/admin/decisions, the decision itself and the console pages answer 200 with the event among the decisions', async () => {
    // Known to the registry (an event alone registers no agent), so the agents page has it to show.
    expect((await call(sidecar.url, 'POST', '/v1/heartbeat', { token: operator, body: { agent_id: 'ingest-agent' } })).status).toBe(200);
    const ev = await call(sidecar.url, 'POST', '/v1/events', {
      token: operator,
      body: { event_type: 'tool.invoked', payload: { tool: 'search', step: 1 }, metadata: { agent_id: 'ingest-agent', session_id: 'sess-1' } },
    });
    expect(ev.status, ev.text).toBe(200);
    const id = ev.body.envelope.decision_id as string;
    let one: CallResult | undefined;
    await vi.waitFor(
      async () => {
        one = await call(cp.url, 'GET', `/admin/decisions/${id}`, { token: operator });
        expect(one.status, one.text).toBe(200);
      },
      { timeout: 5000, interval: 25 },
    );
    // An ingested event's entry keeps no triggered policies, and its trace id in the decision.
    expect(one!.body).toMatchObject({
      decision_id: id,
      tenant_id: 'default',
      agent_id: 'ingest-agent',
      event_type: 'tool.invoked',
      execution_status: ev.body.envelope.execution_status,
      risk_score: ev.body.envelope.risk_score,
      trace_id: ev.body.trace_id,
      triggered: [],
      resolution: null,
    });
    const list = await call(cp.url, 'GET', '/admin/decisions?limit=500', { token: operator });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.find((d: { decision_id: string }) => d.decision_id === id)).toMatchObject({ event_type: 'tool.invoked', agent_id: 'ingest-agent' });
    // Decisions made by /v1/decide are still there beside it.
    expect(list.body.data.some((d: { event_type: string }) => d.event_type === 'decision')).toBe(true);

    const created = await call(cp.url, 'POST', '/admin/users', { token: admin, body: { email: 'viewer@cpad.example', name: 'Viewer', role: 'viewer', password: PASSWORD } });
    expect(created.status, created.text).toBe(201);
    const login = await call(cp.authUrl, 'POST', '/login', { body: { email: 'viewer@cpad.example', password: PASSWORD } });
    expect(login.status, login.text).toBe(200);
    const cookie = `aduana_session=${login.body.session_token}`;
    const overview = await call(cp.authUrl, 'GET', '/console', { headers: { cookie } });
    expect(overview.status, overview.text).toBe(200);
    const decisions = await call(cp.authUrl, 'GET', '/console/decisions?since=all', { headers: { cookie } });
    expect(decisions.status, decisions.text).toBe(200);
    expect(decisions.text).toContain(`data-decision="${id}"`);
    expect(decisions.text).toContain('tool.invoked');
    await vi.waitFor(
      async () => {
        const agents = await call(cp.authUrl, 'GET', '/console/agents', { headers: { cookie } });
        expect(agents.status, agents.text).toBe(200);
        expect(agents.text).toContain('ingest-agent');
      },
      { timeout: 5000, interval: 50 },
    );
  });
});

describe('the request log in fleet mode', () => {
  it('is set at the control plane, which keeps no samples; a sidecar reads the setting, off, and refuses to change it', async () => {
    const created = await call(cp.url, 'POST', '/admin/users', { token: admin, body: { email: 'settings@cpad.example', name: 'Settings', role: 'admin', password: PASSWORD } });
    expect(created.status, created.text).toBe(201);
    const login = await call(cp.authUrl, 'POST', '/login', { body: { email: 'settings@cpad.example', password: PASSWORD } });
    expect(login.status, login.text).toBe(200);
    const cookie = `aduana_session=${login.body.session_token}`;
    const settings = await call(cp.authUrl, 'GET', '/console/settings', { headers: { cookie } });
    expect(settings.status).toBe(200);
    // Set here for every sidecar (docs/console.md, "Request log"): control-plane-request-log.test.ts covers the rest.
    expect(settings.text).toContain('Set here for every sidecar of this control plane');
    expect(settings.text).toContain('id="request-log-form"');
    expect(settings.text).toContain('This control plane keeps none');
    const proxied = await call(sidecar.url, 'POST', '/v1/proxy/chat/completions', { token: operator, headers: { 'x-svc-agent-id': 'sampled-agent' }, body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] } });
    expect(proxied.status, proxied.text).toBe(200);
    const id = proxied.headers['x-svc-trace-id'] as string;
    await vi.waitFor(async () => expect((await call(cp.url, 'GET', `/admin/decisions/${id}`, { token: operator })).status).toBe(200), { timeout: 5000, interval: 25 });
    expect((await call(cp.authUrl, 'GET', `/console/decisions/${id}`, { headers: { cookie } })).text).toContain('data-sample="elsewhere"');

    expect((await call(sidecar.url, 'GET', '/v1/settings/request-log', { token: operator })).body).toMatchObject({ enabled: false });
    expectEnvelope(await call(sidecar.url, 'PUT', '/v1/settings/request-log', { token: admin, body: { enabled: true } }), 409, 'invalid_request');
    expect((await call(sidecar.url, 'GET', '/v1/settings/request-log', { token: operator })).body).toMatchObject({ enabled: false });
  });
});
