import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The SDK's own source (the gateway does not depend on it; its tests drive it against the real server).
import { AduanaClient, AduanaError } from '../sdk/src/index.js';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

let t: TestGateway;
let tok: { admin: string; operator: string; viewer: string };

beforeAll(async () => {
  t = await startTestGateway();
  tok = await t.tenant('sdk');
  const r = await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'no sql drops', type: 'content_filter', risk: 90, rules: { patterns: ['(?i)drop table'] } } });
  if (r.status !== 200) throw new Error(r.text);
});
afterAll(() => t.close());

const client = (agentId: string, token = tok.operator) => new AduanaClient({ baseUrl: t.url, token, agentId });

describe('@aduana/sdk against a real gateway', () => {
  it('register() creates, then updates; agent() reads it back', async () => {
    const c = client('sdk-agent');
    const first = await c.register({ name: 'SDK agent', metadata: { lang: 'ts' } });
    expect(first).toMatchObject({ agent_id: 'sdk-agent', name: 'SDK agent', status: 'ACTIVE', created: true });
    expect((await c.register({ name: 'SDK agent v2' })).created).toBe(false);
    expect(await c.agent()).toMatchObject({ name: 'SDK agent v2', status: 'ACTIVE' });
  });

  it('the heartbeat loop beats until stop(), and stops cleanly', async () => {
    const c = client('beater');
    const loop = c.startHeartbeats(50, () => undefined, () => ({ status: 'busy' }));
    while (loop.sent < 3) await new Promise((r) => setTimeout(r, 20));
    await loop.stop();
    const sent = loop.sent;
    await new Promise((r) => setTimeout(r, 200));
    expect(loop.sent).toBe(sent);
    expect(loop.failed).toBe(0);
    const a = await call(t.url, 'GET', '/v1/agents/beater', { token: tok.viewer });
    expect(a.body).toMatchObject({ status: 'ACTIVE', heartbeat: { reported_status: 'busy' } });
  });

  it('process() returns a typed verdict with the trace id: ALLOW, DENY with the rule, agent_suspended', async () => {
    const c = client('tooler');
    const ok = await c.process({ type: 'lookup_order', payload: { id: 'A-1' }, sessionId: 's1' });
    expect(ok).toMatchObject({ verdict: 'ALLOW', allowed: true, rule: '' });
    expect(ok.policyVersion).toMatch(/^v\d+$/);
    const recorded = await call(t.url, 'GET', `/admin/decisions/${ok.decisionId}`, { token: tok.viewer });
    expect(recorded.body.trace_id).toBe(ok.traceId);

    const no = await c.process({ type: 'run_sql', payload: { query: 'DROP TABLE users' } });
    expect(no).toMatchObject({ verdict: 'DENY', allowed: false });
    expect(no.rule).toMatch(/^pol_/);

    await call(t.url, 'POST', '/v1/agents/tooler/suspend', { token: tok.admin });
    expect(await c.process({ type: 'lookup_order' })).toMatchObject({ verdict: 'DENY', allowed: false, rule: 'agent_suspended' });
  });

  it('refusals are AduanaError with the envelope fields; an unreachable gateway is a network_error', async () => {
    const bad = new AduanaClient({ baseUrl: t.url, token: 'adu_pat_nope', agentId: 'x' });
    const err = await bad.process({ type: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AduanaError);
    expect(err).toMatchObject({ status: 401, type: 'authentication_error' });
    const viewer = await client('x', tok.viewer).register({ name: 'x' }).catch((e: unknown) => e);
    expect(viewer).toMatchObject({ status: 403, type: 'permission_denied' });
    const gone = await new AduanaClient({ baseUrl: 'http://127.0.0.1:1', token: 't', agentId: 'x', timeoutMs: 2000 }).heartbeat().catch((e: unknown) => e);
    expect(gone).toMatchObject({ status: 0, type: 'network_error' });
  });

  it('the runnable example registers, beats and is refused the destructive tool', async () => {
    const example = fileURLToPath(new URL('../sdk/examples/tool-agent.mjs', import.meta.url));
    const loader = fileURLToPath(new URL('./helpers/register-ts.mjs', import.meta.url));
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--experimental-transform-types', '--no-warnings', '--conditions=source', '--import', loader, example], {
        env: { ...process.env, ADUANA_URL: t.url, ADUANA_TOKEN: tok.operator, ADUANA_AGENT_ID: 'example', ADUANA_HEARTBEAT_MS: '100' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('registered example: ACTIVE');
    expect(out.stdout).toMatch(/lookup_order: ALLOW trace [0-9a-f]{32}/);
    expect(out.stdout).toMatch(/run_sql: DENY \(rule pol_/);
    expect((await call(t.url, 'GET', '/v1/agents/example', { token: tok.viewer })).body.policy_pack).toBe('FREE_TIER_POLICIES');
  });
});
