import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLocalRedis, type LocalRedis } from '@aduana/shared/local-servers';
import { call, type CallResult } from './helpers/start-test-gateway.js';
import { startSidecar, TestControlPlane, type TestSidecar } from './helpers/fleet-control-plane.js';
import { poll } from '../../shared/test/helpers/poll.js';
import { MockUpstream } from './helpers/mock-upstream.js';

// Two sidecars of one control plane sharing one Redis: a `rate_limit` policy's window holds for both together
// (docs/fleet.md, "Shared limits"). Each call's hit is counted on Redis before the call is judged, so the shared
// window has no slack: at most `limit` calls are allowed across the sidecars in a window, exactly as one gateway
// allows. The tenants are on the enterprise plan, so the plan limit never refuses anything here.
let redis: LocalRedis;
let mock: MockUpstream;
let cp: TestControlPlane;
let a: TestSidecar;
let b: TestSidecar;
let t: { admin: string; operator: string; viewer: string };

const TENANT = 'srp';

beforeAll(async () => {
  redis = await startLocalRedis();
  mock = await new MockUpstream().start();
  cp = await TestControlPlane.start();
  t = await cp.gw.tenant(TENANT, 'enterprise');
  cp.bump();
  const sidecarToken = (await cp.sidecarTokens.create('srp sidecars', [TENANT])).token;
  const overrides = { redisUrl: redis.url, upstreamBaseUrl: mock.url, redisReconnectMaxMs: 200 };
  a = await startSidecar(cp.url, sidecarToken, undefined, overrides);
  b = await startSidecar(cp.url, sidecarToken, undefined, overrides);
  const ready = async (s: TestSidecar) =>
    (await call(s.url, 'GET', '/health')).body?.fleet?.bundle?.revision === cp.changes.revision() && (await limitsMetrics(s)).connected === 1;
  expect(await poll(async () => (await ready(a)) && (await ready(b)), { what: 'both sidecars to hold the bundle and reach Redis', timeoutMs: 10_000 })).toBe(true);
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await cp?.close();
  await mock?.close();
  await redis?.stop();
});

/** A sidecar's fallbacks of rate_limit policy windows and its Redis connection gauge (process-wide series). */
async function limitsMetrics(s: TestSidecar): Promise<{ ratePolicy: number; connected: number }> {
  const r = await call(s.url, 'GET', '/v1/telemetry/metrics', { token: t.viewer });
  expect(r.status).toBe(200);
  const families = new Map(parsePrometheusTextFormat(r.text).map((f) => [f.name, f]));
  const fallbacks = families.get('aduana_limits_redis_fallbacks_total')?.metrics ?? [];
  const ratePolicy = Number(fallbacks.find((m) => m.labels?.['kind'] === 'rate_policy')?.value ?? 0);
  const connected = Number(families.get('aduana_limits_redis_connected')?.metrics[0]?.value ?? NaN);
  return { ratePolicy, connected };
}

/** Announces a change at the control plane and waits until both sidecars hold the bundle that carries it. */
async function publish(): Promise<void> {
  const revision = cp.bump();
  const has = async (s: TestSidecar) => (await call(s.url, 'GET', '/health')).body?.fleet?.bundle?.revision >= revision;
  expect(await poll(async () => (await has(a)) && (await has(b)), { what: 'both sidecars to hold the new bundle', timeoutMs: 5000 })).toBe(true);
}

/** The policies a test created: disabled after it, so the next test's policy is judged alone. */
const created: string[] = [];

/** Creates a policy at the control plane and waits until both sidecars enforce it. */
async function policyAtControlPlane(name: string, rules: Record<string, unknown>): Promise<string> {
  const r = await call(cp.gw.url, 'POST', '/v1/policies', { token: t.admin, body: { name, type: 'rate_limit', risk: 40, rules } });
  expect(r.status).toBe(200);
  created.push(r.body.id as string);
  await publish();
  return r.body.id as string;
}

afterEach(async () => {
  for (const id of created.splice(0)) {
    expect((await call(cp.gw.url, 'PUT', `/v1/policies/${id}`, { token: t.admin, body: { enabled: false } })).status).toBe(200);
  }
  await publish();
});

const decide = (s: TestSidecar, agent: string): Promise<CallResult> =>
  call(s.url, 'POST', '/v1/decide', { token: t.operator, body: { agent_id: agent, action: { type: 'tool_call', payload: { text: 'hello' } } } });
const proxied = (s: TestSidecar, agent: string): Promise<CallResult> =>
  call(s.url, 'POST', '/v1/proxy/chat/completions', {
    token: t.operator,
    body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] },
    headers: { 'x-svc-agent-id': agent },
  });

interface Outcome {
  at: TestSidecar;
  allowed: boolean;
  rule: string;
}

/** What one call's answer says: allowed or not, and the rule that refused it. */
function outcome(at: TestSidecar, r: CallResult, via: 'decide' | 'proxy'): Outcome {
  if (via === 'decide') {
    expect(r.status).toBe(200);
    return { at, allowed: r.body.envelope.execution_status === 'ALLOW', rule: r.headers['x-svc-rule'] ?? '' };
  }
  expect([200, 403]).toContain(r.status);
  return { at, allowed: r.status === 200, rule: r.headers['x-svc-rule'] ?? '' };
}

/** `n` calls at once, alternating between the sidecars; every fourth one through the proxy, the rest /v1/decide. */
async function burst(n: number, agentOf: (i: number) => string): Promise<Outcome[]> {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const s = i % 2 === 0 ? a : b;
      return i % 4 === 3 ? outcome(s, await proxied(s, agentOf(i)), 'proxy') : outcome(s, await decide(s, agentOf(i)), 'decide');
    }),
  );
}

describe('rate_limit policies shared on Redis', () => {
  it('tenant scope, 10 a minute: at most 10 of 24 calls through two sidecars are allowed; both refuse the rest', async () => {
    const id = await policyAtControlPlane('tenant rate', { limit: 10, window_s: 60, scope: 'tenant' });
    const before = [await limitsMetrics(a), await limitsMetrics(b)];
    const results = await burst(24, (i) => `agent-${i}`);
    const allowed = results.filter((r) => r.allowed);
    // Each sidecar counting alone would allow 10 of its 12 (20 together).
    expect(allowed.length).toBeLessThanOrEqual(10);
    expect(allowed.length).toBeGreaterThanOrEqual(1);
    for (const s of [a, b]) {
      const refused = results.filter((r) => r.at === s && !r.allowed);
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) expect(r.rule).toBe(id);
    }
    // Redis answered every hit: nothing fell back.
    expect((await limitsMetrics(a)).ratePolicy).toBe(before[0]!.ratePolicy);
    expect((await limitsMetrics(b)).ratePolicy).toBe(before[1]!.ratePolicy);
  });

  it('agent scope, 10 a minute: at most 10 of one agent’s 24 calls through two sidecars; another agent has its own 10', async () => {
    const id = await policyAtControlPlane('agent rate', { limit: 10, window_s: 60, scope: 'agent' });
    const one = await burst(24, () => 'busy-agent');
    expect(one.filter((r) => r.allowed).length).toBeLessThanOrEqual(10);
    for (const r of one.filter((x) => !x.allowed)) expect(r.rule).toBe(id);
    // Another agent's window is its own: its first call through either sidecar is allowed.
    expect(outcome(a, await decide(a, 'quiet-agent'), 'decide').allowed).toBe(true);
    expect(outcome(b, await decide(b, 'quiet-agent'), 'decide').allowed).toBe(true);
    const other = await burst(24, () => 'quiet-agent');
    expect(other.filter((r) => r.allowed).length).toBeLessThanOrEqual(8);
  });

  it('Redis unreachable: each sidecar judges the window alone at once (at most the limit each), counted as a fallback; shared again once Redis is back', async () => {
    const id = await policyAtControlPlane('tenant rate, Redis away', { limit: 10, window_s: 60, scope: 'tenant' });
    const before = [await limitsMetrics(a), await limitsMetrics(b)];
    await redis.halt();
    expect(await poll(async () => (await limitsMetrics(a)).connected + (await limitsMetrics(b)).connected === 0, { what: 'both sidecars to lose Redis', timeoutMs: 5000 })).toBe(true);
    const at = async (s: TestSidecar): Promise<boolean[]> => {
      const allowed: boolean[] = [];
      for (let i = 0; i < 12; i++) allowed.push(outcome(s, await decide(s, `away-${i}`), 'decide').allowed);
      return allowed;
    };
    const atA = await at(a);
    const atB = await at(b);
    // Fail-static: never refused or held because Redis is away; each sidecar applies the limit to its own calls.
    expect(atA[0]).toBe(true);
    expect(atA.filter(Boolean).length).toBeLessThanOrEqual(10);
    // B has not seen A's calls: its first call is allowed although A's ten used up the tenant's window.
    expect(atB[0]).toBe(true);
    expect(atB.filter(Boolean).length).toBeLessThanOrEqual(10);
    expect((await limitsMetrics(a)).ratePolicy - before[0]!.ratePolicy).toBe(12);
    expect((await limitsMetrics(b)).ratePolicy - before[1]!.ratePolicy).toBe(12);
    // The next policy is judged alone.
    expect((await call(cp.gw.url, 'PUT', `/v1/policies/${id}`, { token: t.admin, body: { enabled: false } })).status).toBe(200);

    await redis.restart();
    expect(await poll(async () => (await limitsMetrics(a)).connected + (await limitsMetrics(b)).connected === 2, { what: 'both sidecars to reach Redis again', timeoutMs: 10_000 })).toBe(true);
    const back = [await limitsMetrics(a), await limitsMetrics(b)];
    await policyAtControlPlane('tenant rate, Redis back', { limit: 10, window_s: 60, scope: 'tenant' });
    const results = await burst(24, (i) => `back-${i}`);
    expect(results.filter((r) => r.allowed).length).toBeLessThanOrEqual(10);
    expect((await limitsMetrics(a)).ratePolicy).toBe(back[0]!.ratePolicy);
    expect((await limitsMetrics(b)).ratePolicy).toBe(back[1]!.ratePolicy);
  });
});
