import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freeLoopbackPort, startLocalPostgres, startLocalRedis, type LocalPostgres, type LocalRedis } from '@aduana/shared/local-servers';
import { assertBuilt, runCli, startCliService, waitExit } from '../helpers/run-cli.js';
import { call, expectEnvelope } from '../helpers/start-test-gateway.js';
import { MockUpstream } from '../helpers/mock-upstream.js';

/**
 * The fleet end to end, every part real and in its own process (docs/fleet.md): PostgreSQL and Redis servers of the
 * machine's packages, `aduana control` on PostgreSQL, and two `aduana gateway` sidecars pointing at it, each with its
 * own data dir. What the fleet promises is checked from outside, through HTTP, as an operator would see it.
 */

interface Proc {
  child: ChildProcess;
  url: string;
  authUrl: string;
}

const decide = (agent: string, text = 'hello') => ({ agent_id: agent, action: { type: 'http', target: 'https://example.com', method: 'POST', payload: { text } } });

describe('fleet mode: a control plane on PostgreSQL, two sidecars, Redis', () => {
  let pg: LocalPostgres;
  let redis: LocalRedis;
  let upstream: MockUpstream;
  let databaseUrl = '';
  const dirs: string[] = [];
  let control: Proc;
  let controlPorts: { api: number; auth: number };
  let controlDir = '';
  let adminToken = '';
  let sidecarToken = '';
  const sidecars: { name: string; dir: string; port: number; proc: Proc }[] = [];
  let operator = '';

  const tmp = (name: string) => {
    const d = mkdtempSync(join(tmpdir(), `aduana-fleet-${name}-`));
    dirs.push(d);
    return d;
  };

  const startControl = async (): Promise<Proc> => {
    const { child, match } = await startCliService(
      ['control'],
      { DATABASE_URL: databaseUrl, DATA_DIR: controlDir, GATEWAY_PORT: String(controlPorts.api), AUTH_PORT: String(controlPorts.auth), LOG_LEVEL: 'warn', ADUANA_QUIET_BOOTSTRAP: 'true' },
      /API on (http:\/\/\S+), auth service on (http:\/\/\S+)/,
    );
    return { child, url: match[1]!, authUrl: match[2]! };
  };

  const startSidecar = async (s: { dir: string; port: number }): Promise<Proc> => {
    const { child, match } = await startCliService(
      ['gateway'],
      {
        CONTROL_PLANE_URL: control.url,
        SIDECAR_TOKEN: sidecarToken,
        REDIS_URL: redis.url,
        DATA_DIR: s.dir,
        GATEWAY_PORT: String(s.port),
        AUTH_PORT: '0',
        UPSTREAM_BASE_URL: upstream.url,
        LOG_LEVEL: 'warn',
        // Checkpoints often, so the shipped chains carry signed checkpoints in these short runs.
        CHECKPOINT_EVERY: '5',
      },
      /API and proxy on (http:\/\/\S+), auth service on (http:\/\/\S+)/,
    );
    return { child, url: match[1]!, authUrl: match[2]! };
  };

  beforeAll(async () => {
    assertBuilt();
    [pg, redis] = await Promise.all([startLocalPostgres(), startLocalRedis()]);
    databaseUrl = await pg.createDatabase('fleet_e2e');
    upstream = await new MockUpstream().start();
    controlDir = tmp('control');
    controlPorts = { api: await freeLoopbackPort(), auth: await freeLoopbackPort() };
    control = await startControl();
    // The control plane's first start bootstrapped tenant `default` and its admin token, as the gateway does.
    expect(readFileSync(join(controlDir, 'bootstrap-admin.token'), 'utf8')).toMatch(/^adu_pat_/);
    const created = await runCli(['sidecar-token', 'create', '--name', 'e2e'], { DATABASE_URL: databaseUrl, DATA_DIR: controlDir });
    expect(created.code, created.stderr).toBe(0);
    sidecarToken = created.stdout.match(/adu_sct_\w+/)![0];
    for (const name of ['a', 'b']) {
      const s = { name, dir: tmp(name), port: await freeLoopbackPort() };
      sidecars.push({ ...s, proc: await startSidecar(s) });
    }
    // The tenant under test is on the enterprise plan, so its plan limit never interferes; `limited` tests the limit.
    expect((await runCli(['tenant', 'create', 'acme', '--plan', 'enterprise'], { DATABASE_URL: databaseUrl, DATA_DIR: controlDir })).code).toBe(0);
    const adm = await runCli(['token', 'create', '--tenant', 'acme', '--role', 'admin'], { DATABASE_URL: databaseUrl, DATA_DIR: controlDir });
    expect(adm.code, adm.stderr).toBe(0);
    adminToken = adm.stdout.match(/adu_pat_\w+/)![0];
    const op = await call(control.authUrl, 'POST', '/token', { token: adminToken, body: { name: 'e2e operator', role: 'operator' } });
    expect(op.status, op.text).toBe(200);
    operator = op.body.token;
    // The operator token reaches both sidecars through their bundles.
    await vi.waitFor(async () => {
      for (const s of sidecars) expect((await call(s.proc.url, 'POST', '/v1/decide', { token: operator, body: decide('warm-up') })).status).toBe(200);
    }, { timeout: 10_000, interval: 50 });
  }, 120_000);

  afterAll(async () => {
    for (const s of sidecars) s.proc.child.kill('SIGTERM');
    control?.child.kill('SIGTERM');
    await Promise.all([...sidecars.map((s) => waitExit(s.proc.child)), control ? waitExit(control.child) : null]);
    await upstream?.close();
    await Promise.all([pg?.stop(), redis?.stop()]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }, 60_000);

  it('a policy created at the control plane is enforced by every sidecar within 2 s', async () => {
    const policy = { name: 'no wire transfers', type: 'content_filter', risk: 80, rules: { patterns: ['wire transfer'], action: 'DENY' } };
    const created = await call(control.url, 'POST', '/v1/policies', { token: adminToken, body: policy });
    expect(created.status, created.text).toBe(200);
    await vi.waitFor(async () => {
      for (const s of sidecars) {
        const r = await call(s.proc.url, 'POST', '/v1/decide', { token: operator, body: decide('payments', 'please make a wire transfer') });
        expect(r.body?.envelope?.execution_status, `${s.name}: ${r.text}`).toBe('DENY');
      }
    }, { timeout: 2000, interval: 25 });
    // The same text with another word is still allowed: the sidecars enforce this policy, not a blanket refusal.
    for (const s of sidecars) expect((await call(s.proc.url, 'POST', '/v1/decide', { token: operator, body: decide('payments', 'a wire fence') })).body.envelope.execution_status).toBe('ALLOW');
  });

  it('a token revoked at the control plane is refused by every sidecar within 2 s', async () => {
    const issued = await call(control.authUrl, 'POST', '/token', { token: adminToken, body: { name: 'short-lived', role: 'operator' } });
    const token: string = issued.body.token;
    await vi.waitFor(async () => {
      for (const s of sidecars) expect((await call(s.proc.url, 'POST', '/v1/decide', { token, body: decide('t') })).status).toBe(200);
    }, { timeout: 5000, interval: 25 });
    const revoked = await runCli(['token', 'revoke', issued.body.id], { DATABASE_URL: databaseUrl, DATA_DIR: controlDir });
    expect(revoked.code, revoked.stderr).toBe(0);
    await vi.waitFor(async () => {
      for (const s of sidecars) expectEnvelope(await call(s.proc.url, 'POST', '/v1/decide', { token, body: decide('t') }), 401, 'authentication_error');
    }, { timeout: 2000, interval: 25 });
  });

  it('a tenant limit of N per minute holds across both sidecars together', async () => {
    // A new community tenant (60 per minute, burst 10) with its own operator token.
    expect((await runCli(['tenant', 'create', 'limited', '--plan', 'community'], { DATABASE_URL: databaseUrl, DATA_DIR: controlDir })).code).toBe(0);
    const tok = await runCli(['token', 'create', '--tenant', 'limited', '--role', 'operator'], { DATABASE_URL: databaseUrl, DATA_DIR: controlDir });
    const token = tok.stdout.match(/adu_pat_\w+/)![0];
    await vi.waitFor(async () => {
      for (const s of sidecars) expect((await call(s.proc.url, 'GET', '/v1/policies', { token })).status).not.toBe(401);
    }, { timeout: 5000, interval: 25 });
    // Both sidecars spent one request each on the wait above; now 40 more, alternating, as fast as they answer.
    const started = Date.now();
    const statuses: Record<string, number[]> = { a: [], b: [] };
    for (let i = 0; i < 40; i++) {
      const s = sidecars[i % 2]!;
      statuses[s.name]!.push((await call(s.proc.url, 'GET', '/v1/policies', { token })).status);
    }
    const elapsedS = (Date.now() - started) / 1000;
    const admitted = [...statuses['a']!, ...statuses['b']!].filter((c) => c === 200).length;
    // burst 10, refilled at one per second, shared: never the 2 × 10 two independent buckets would allow.
    expect(admitted).toBeLessThanOrEqual(10 + Math.ceil(elapsedS) + 1);
    expect(statuses['a']).toContain(429);
    expect(statuses['b']).toContain(429);
  });

  it("entries from both sidecars reach the control plane and verify; a tampered shipped entry is refused", async () => {
    const acked: string[] = [];
    for (const s of sidecars) {
      const r = await call(s.proc.url, 'POST', '/v1/events', { token: operator, body: { event_type: 'note', payload: { from: s.name } } });
      expect(r.status, r.text).toBe(200);
      acked.push(r.body.envelope.decision_id);
    }
    await vi.waitFor(async () => {
      const list = await call(control.url, 'GET', '/v1/events?limit=500', { token: adminToken });
      expect(list.status, list.text).toBe(200);
      const ids = new Set(list.body.events.map((e: { decision: { decision_id: string } | null }) => e.decision?.decision_id));
      for (const id of acked) expect(ids.has(id)).toBe(true);
      expect(new Set(list.body.events.map((e: { chain_id: string }) => e.chain_id)).size).toBeGreaterThanOrEqual(2);
    }, { timeout: 10_000, interval: 100 });
    const verify = await call(control.url, 'GET', '/v1/events/verify', { token: adminToken });
    expect(verify.status, verify.text).toBe(200);
    expect(verify.body.ok, verify.text).toBe(true);

    // A shipment whose entry was altered after hashing: refused, and nothing of it stored.
    const list = await call(control.url, 'GET', '/v1/events?limit=500', { token: adminToken });
    const before = list.body.events.length;
    const forged = {
      format: 'aduana-ledger-batch/1',
      chain_id: 'forger/acme',
      tenant_id: 'acme',
      public_key: { key_id: 'k', pem: '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----\n', raw: 'Gb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=' },
      entries: [{ ...list.body.events[0], chain_id: undefined, seq: 1, prev_hash: '0'.repeat(64), payload: { tampered: true } }],
      checkpoints: [],
    };
    const refused = await call(control.url, 'POST', '/v1/fleet/ledger', { token: sidecarToken, body: forged });
    expect([409, 422]).toContain(refused.status);
    expect((await call(control.url, 'GET', '/v1/events?limit=500', { token: adminToken })).body.events.length).toBe(before);
  });

  it('with the control plane stopped, sidecars keep serving on their last bundle, and their outbox drains once it is back', async () => {
    control.child.kill('SIGTERM');
    await waitExit(control.child);
    const acked: string[] = [];
    for (const s of sidecars) {
      // Still enforcing the policy from the bundle they hold.
      expect((await call(s.proc.url, 'POST', '/v1/decide', { token: operator, body: decide('payments', 'a wire transfer now') })).body.envelope.execution_status).toBe('DENY');
      for (let i = 0; i < 5; i++) {
        const r = await call(s.proc.url, 'POST', '/v1/events', { token: operator, body: { event_type: 'offline', payload: { from: s.name, i } } });
        expect(r.status, r.text).toBe(200);
        acked.push(r.body.envelope.decision_id);
      }
    }
    control = await startControl();
    await vi.waitFor(async () => {
      const list = await call(control.url, 'GET', '/v1/events?limit=500&event_type=offline', { token: adminToken });
      const ids = new Set(list.body.events.map((e: { decision: { decision_id: string } | null }) => e.decision?.decision_id));
      for (const id of acked) expect(ids.has(id)).toBe(true);
    }, { timeout: 15_000, interval: 100 });
  });

  it('a SIGKILLed sidecar loses no acknowledged event', async () => {
    const s = sidecars[0]!;
    const acked: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await call(s.proc.url, 'POST', '/v1/events', { token: operator, body: { event_type: 'killed', payload: { i } } });
      expect(r.status).toBe(200);
      acked.push(r.body.envelope.decision_id);
    }
    s.proc.child.kill('SIGKILL');
    await waitExit(s.proc.child);
    s.proc = await startSidecar(s);
    await vi.waitFor(async () => {
      const list = await call(control.url, 'GET', '/v1/events?limit=500&event_type=killed', { token: adminToken });
      const ids = new Set(list.body.events.map((e: { decision: { decision_id: string } | null }) => e.decision?.decision_id));
      for (const id of acked) expect(ids.has(id)).toBe(true);
    }, { timeout: 15_000, interval: 100 });
    const verify = await call(control.url, 'GET', '/v1/events/verify', { token: adminToken });
    expect(verify.body.ok, verify.text).toBe(true);
  });
});
