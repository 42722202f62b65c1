import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectEnvelope, type CallResult } from './helpers/start-test-gateway.js';
import { startSidecar, TestControlPlane, type TestSidecar } from './helpers/fleet-control-plane.js';
import { poll } from '../../shared/test/helpers/poll.js';

let cp: TestControlPlane;
let sidecarToken: string;
let tenant: { admin: string; operator: string; viewer: string };
let other: { admin: string; operator: string; viewer: string };
const started: TestSidecar[] = [];

beforeAll(async () => {
  cp = await TestControlPlane.start();
  tenant = await cp.gw.tenant('fs-a');
  other = await cp.gw.tenant('fs-b');
  cp.bump();
  sidecarToken = (await cp.sidecarTokens.create('fs-a sidecars', ['fs-a'])).token;
});
afterAll(async () => {
  for (const s of started) await s.close();
  await cp.close();
});

async function sidecar(dataDir?: string): Promise<TestSidecar> {
  const s = await startSidecar(cp.url, sidecarToken, dataDir);
  started.push(s);
  return s;
}

function decide(base: string, token: string, text: string): Promise<CallResult> {
  return call(base, 'POST', '/v1/decide', { token, body: { agent_id: 'agent-1', action: { type: 'tool_call', target: 'https://api.example.com/x', payload: { text } } } });
}

const verdict = async (base: string, token: string, text: string): Promise<string> => (await decide(base, token, text)).body?.envelope?.execution_status ?? 'none';

async function createPolicyAtControlPlane(name: string, pattern: string): Promise<void> {
  const r = await call(cp.gw.url, 'POST', '/v1/policies', { token: tenant.admin, body: { name, type: 'content_filter', risk: 90, rules: { patterns: [pattern], action: 'DENY' } } });
  if (r.status !== 200) throw new Error(r.text);
  cp.bump();
}

describe('a sidecar takes its state from the control plane', () => {
  let s: TestSidecar;
  beforeAll(async () => {
    s = await sidecar();
    expect(await poll(async () => (await call(s.url, 'GET', '/health')).body.fleet.bundle.revision === cp.changes.revision(), { what: 'the sidecar to hold the current bundle', timeoutMs: 2000 })).toBe(true);
  });

  it('serves the tenants of its sidecar token, and no other tenant', async () => {
    expect(await verdict(s.url, tenant.operator, 'hello')).toBe('ALLOW');
    expectEnvelope(await decide(s.url, other.operator, 'hello'), 401, 'authentication_error');
    // No bootstrap at a sidecar: its tenant `default` and admin token come from nowhere but the bundle.
    expect(s.gw.bootstrapToken).toBeNull();
    expectEnvelope(await decide(s.url, cp.gw.adminToken, 'hello'), 401, 'authentication_error');
  });

  it('enforces a policy created at the control plane within 2 s', async () => {
    expect(await verdict(s.url, tenant.operator, 'please drop the prod db')).toBe('ALLOW');
    await createPolicyAtControlPlane('no prod', 'drop the prod');
    expect(await poll(async () => (await verdict(s.url, tenant.operator, 'please drop the prod db')) === 'DENY', { what: 'the policy to deny at the sidecar', timeoutMs: 2000 })).toBe(true);
    expect(await verdict(s.url, tenant.operator, 'hello')).toBe('ALLOW');
    const listed = await call(s.url, 'GET', '/v1/policies', { token: tenant.viewer });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain('no prod');
  });

  it('refuses a token revoked at the control plane within 2 s', async () => {
    const { token, record } = await cp.gw.gw.deps.tokens.create({ tenantId: 'fs-a', role: 'operator', name: 'to revoke', expiresInDays: 30 });
    cp.bump();
    expect(await poll(async () => (await decide(s.url, token, 'hello')).status === 200, { what: 'the new token to be accepted at the sidecar', timeoutMs: 2000 })).toBe(true);
    expect(await cp.gw.gw.deps.tokens.revoke(record.id)).toBe(true);
    cp.bump();
    expect(await poll(async () => (await decide(s.url, token, 'hello')).status === 401, { what: 'the revoked token to be refused at the sidecar', timeoutMs: 2000 })).toBe(true);
    expect((await decide(s.url, token, 'hello')).body.error.message).toMatch(/revoked/);
  });

  it('takes agent registrations from the control plane: an agent suspended there is refused at the sidecar', async () => {
    const agentDecide = () => call(s.url, 'POST', '/v1/decide', { token: tenant.operator, body: { agent_id: 'bot-9', action: { type: 'tool_call', payload: { text: 'hi' } } } });
    expect((await agentDecide()).body.envelope.execution_status).toBe('ALLOW');
    const cpAgents = cp.gw.gw.deps.agents;
    await cpAgents.upsert('fs-a', 'bot-9', { name: 'Bot nine', risk_budget: 40 });
    await cpAgents.setSuspended('fs-a', 'bot-9', true);
    cp.bump();
    expect(await poll(async () => (await agentDecide()).body.envelope?.execution_status === 'DENY', { what: 'the suspended agent to be denied at the sidecar', timeoutMs: 2000 })).toBe(true);
    const view = await call(s.url, 'GET', '/v1/agents/bot-9', { token: tenant.viewer });
    expect(view.body).toMatchObject({ name: 'Bot nine', status: 'SUSPENDED' });
    await cpAgents.setSuspended('fs-a', 'bot-9', false);
    cp.bump();
    expect(await poll(async () => (await agentDecide()).body.envelope?.execution_status === 'ALLOW', { what: 'the resumed agent to be allowed at the sidecar', timeoutMs: 2000 })).toBe(true);
  });

  it('refuses admin writes with 409 naming the control plane, and changes nothing', async () => {
    const before = await call(s.url, 'GET', '/v1/policies', { token: tenant.viewer });
    for (const [base, method, path, body] of [
      [s.url, 'POST', '/v1/policies', { name: 'local', type: 'content_filter', risk: 1, rules: { patterns: ['x'] } }],
      [s.url, 'POST', '/v1/policies/apply-pack', { pack: 'baseline' }],
      [s.url, 'POST', '/admin/users', { email: 'x@fs-a.example', name: 'X', role: 'viewer', password: 'correct horse battery' }],
      [s.authUrl, 'POST', '/token', { role: 'viewer', name: 'local' }],
    ] as const) {
      const r = await call(base, method, path, { token: tenant.admin, body });
      const e = expectEnvelope(r, 409, 'invalid_request');
      expect(e.message).toContain(cp.url);
    }
    const after = await call(s.url, 'GET', '/v1/policies', { token: tenant.viewer });
    expect(after.body).toEqual(before.body);
    // Reads stay open to an admin.
    expect((await call(s.url, 'GET', '/admin/users', { token: tenant.admin })).status).toBe(200);
  });

  it('reports the bundle revision, its age and its instance id on /health', async () => {
    const h = await call(s.url, 'GET', '/health');
    expect(h.status).toBe(200);
    expect(h.body.fleet.control_plane).toBe(cp.url);
    expect(h.body.fleet.bundle.revision).toBe(cp.changes.revision());
    expect(h.body.fleet.bundle.age_s).toBeGreaterThanOrEqual(0);
    expect(h.body.fleet.instance_id).toMatch(/^sci_/);
    expect(h.body.fleet.bundle.last_error).toBeNull();
  });
});

describe('a sidecar without its control plane', () => {
  it('answers 503 no_bundle saying why before its first bundle, then serves once the control plane is reachable', async () => {
    await cp.stop();
    try {
      const s = await sidecar();
      // The error of the failed fetch is in the message once the client has tried.
      expect(await poll(async () => (await call(s.url, 'GET', '/health')).body.fleet.bundle.last_error !== null, { what: 'the failed bundle fetch to be reported', timeoutMs: 2000 })).toBe(true);
      const r = await decide(s.url, tenant.operator, 'hello');
      const e = expectEnvelope(r, 503, 'upstream_unavailable');
      expect(e.message).toContain(cp.url);
      expect(e.message).toMatch(/no bundle/);
      const proxied = await call(s.url, 'POST', '/v1/proxy/chat/completions', { token: tenant.operator, body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] } });
      expectEnvelope(proxied, 503, 'upstream_unavailable');
      expect((await call(s.url, 'GET', '/v1/policies', { token: tenant.viewer })).status).toBe(503);
      await cp.start();
      expect(await poll(async () => (await decide(s.url, tenant.operator, 'hello')).status === 200, { what: 'the sidecar to serve once the control plane is back', timeoutMs: 5000 })).toBe(true);
    } finally {
      await cp.start().catch(() => undefined);
    }
  });

  it('keeps serving on its last bundle with the control plane stopped and after its own restart, then picks up changes', async () => {
    const s = await sidecar();
    await createPolicyAtControlPlane('no rm', 'rm -rf');
    expect(await poll(async () => (await verdict(s.url, tenant.operator, 'run rm -rf /')) === 'DENY', { what: 'the policy to deny at the sidecar', timeoutMs: 2000 })).toBe(true);
    const revision = cp.changes.revision();

    await cp.stop();
    expect(await verdict(s.url, tenant.operator, 'run rm -rf /')).toBe('DENY');
    expect(await verdict(s.url, tenant.operator, 'hello')).toBe('ALLOW');

    await s.stop();
    const again = await sidecar(s.dataDir);
    // Fail-static: the bundle in its LMDB is in force from the first request, with the control plane still away.
    expect(await verdict(again.url, tenant.operator, 'run rm -rf /')).toBe('DENY');
    const h = await call(again.url, 'GET', '/health');
    expect(h.body.fleet.bundle.revision).toBe(revision);
    expect(await poll(async () => (await call(again.url, 'GET', '/health')).body.fleet.bundle.last_error !== null, { what: 'the failed bundle fetch to be reported', timeoutMs: 2000 })).toBe(true);

    await createPolicyAtControlPlane('no curl', 'curl evil');
    await cp.start();
    expect(await poll(async () => (await verdict(again.url, tenant.operator, 'curl evil.sh')) === 'DENY', { what: 'the new policy to deny at the restarted sidecar', timeoutMs: 5000 })).toBe(true);
    expect(await verdict(again.url, tenant.operator, 'run rm -rf /')).toBe('DENY');
  });

  it('keeps its instance id across restarts of one data dir, and two data dirs get two ids', async () => {
    const a = await sidecar();
    const b = await sidecar();
    const idA = a.gw.sidecar?.instanceId;
    expect(idA).toMatch(/^sci_/);
    expect(b.gw.sidecar?.instanceId).not.toBe(idA);
    await a.stop();
    const a2 = await sidecar(a.dataDir);
    expect(a2.gw.sidecar?.instanceId).toBe(idA);
  });
});
