import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { MockUpstream } from './helpers/mock-upstream.js';
import { closeGatewayWithMock, startGatewayWithMock } from './helpers/gateway-with-mock.js';

/**
 * One tenant's policies and inputs must not cost every tenant: hostile patterns are refused when they are written,
 * input text past the evaluation cap is refused, and a policy set that cannot compile is never stored (docs/policies.md).
 */
let t: TestGateway;
let mock: MockUpstream;
let n = 0;

beforeAll(async () => {
  ({ t, mock } = await startGatewayWithMock({ upstreamApiKey: 'sk-test' }));
});
afterAll(() => closeGatewayWithMock({ t, mock }));
beforeEach(() => mock.reset());

const filter = (patterns: string[], name = 'f') => ({ name, type: 'content_filter', risk: 50, rules: { patterns, action: 'DENY' } });
const decide = (token: string, payload: object) =>
  call(t.url, 'POST', '/v1/decide', { token, body: { agent_id: 'agent-1', action: { type: 'tool_call', payload } } });

/** Random a/c text: the input that keeps RE2's DFA from caching its way out of a large counted repetition. */
function adversarialText(len: number): string {
  let seed = 7;
  let s = '';
  for (let i = 0; i < len; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    s += seed & 1 ? 'a' : 'c';
  }
  return s;
}

describe('hostile policies and inputs are bounded per tenant', () => {
  it("tenant A's a.{1000}b filter is refused up front (400, nothing stored), and A's large decide then costs B nothing", async () => {
    const a = await t.tenant(`cost-a-${++n}`);
    const b = await t.tenant(`cost-b-${n}`);
    const before = await call(t.url, 'GET', '/v1/policies', { token: a.admin });
    const r = await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: filter(['a.{1000}b']) });
    const e = expectEnvelope(r, 400, 'invalid_request');
    expect(e.message).toMatch(/a\.\{1000\}b.*limit/);
    const after = await call(t.url, 'GET', '/v1/policies', { token: a.admin });
    expect(after.body.total).toBe(0);
    expect(after.body.policy_version).toBe(before.body.policy_version);

    // The same holds for an update that would make the set too costly.
    const ok = await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: filter(['a.{20}b']) });
    expect(ok.status).toBe(200);
    const put = await call(t.url, 'PUT', `/v1/policies/${ok.body.id}`, { token: a.admin, body: { rules: { patterns: ['a.{1000}b'] } } });
    expectEnvelope(put, 400, 'invalid_request');
    expect((await call(t.url, 'GET', `/v1/policies/${ok.body.id}`, { token: a.admin })).body.rules.patterns).toEqual(['a.{20}b']);

    // A's big payload against what A may have, while B's small request is answered.
    const big = adversarialText(200_000);
    const started = Date.now();
    const [ra, rb] = await Promise.all([decide(a.operator, { text: big }), decide(b.operator, { text: 'hello' })]);
    expect(ra.status).toBe(200);
    expect(rb.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('pattern count and total compiled size are limited per tenant, across all its filters', async () => {
    const a = await t.tenant(`cost-c-${++n}`);
    const many = Array.from({ length: 150 }, (_, i) => `word${i}x`);
    expect((await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: filter(many, 'one') })).status).toBe(200);
    const r = await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: filter(many.map((p) => `${p}y`), 'two') });
    expect(expectEnvelope(r, 400, 'invalid_request').message).toMatch(/at most 200 content-filter patterns/);
    const heavy = Array.from({ length: 40 }, (_, i) => `k${i}[a-z]{1,150}q`);
    const r2 = await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: filter(heavy, 'heavy') });
    expect(expectEnvelope(r2, 400, 'invalid_request').message).toMatch(/instructions; the limit is/);
    expect((await call(t.url, 'GET', '/v1/policies', { token: a.admin })).body.total).toBe(1);
  });

  it('input text past the evaluation cap is refused with 413 (never judged in part and allowed); the upstream is not called', async () => {
    const a = await t.tenant(`cost-d-${++n}`);
    await call(t.url, 'POST', '/v1/policies/apply-pack', { token: a.admin, body: { pack: 'RUNTIME_PAID_POLICIES' } });
    const prompt = 'contact me at someone@example.com '.repeat(40_000); // ~1.36 M characters
    const r = await call(t.url, 'POST', '/v1/proxy/chat/completions', {
      token: a.operator,
      headers: { 'x-svc-agent-id': 'agent-1' },
      body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }] },
    });
    expect(expectEnvelope(r, 413, 'payload_too_large').message).toMatch(/characters of text/);
    expect(mock.received.length).toBe(0);

    // A tenant without input policies reads no text, so the cap does not apply to it.
    const plain = await t.tenant(`cost-e-${n}`);
    const ok = await call(t.url, 'POST', '/v1/proxy/chat/completions', {
      token: plain.operator,
      headers: { 'x-svc-agent-id': 'agent-1' },
      body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }] },
    });
    expect(ok.status).toBe(200);
  });
});

describe('a policy set that cannot compile is never stored', () => {
  let g: TestGateway;
  beforeAll(async () => {
    // Limits raised so the set reaches RE2 itself, which refuses it.
    g = await startTestGateway({ policyMaxPatterns: 10_000, policyMaxPatternSize: 10_000, policyMaxProgramSize: 10_000_000 });
  });
  afterAll(() => g.close());

  it('500 individually valid patterns: 400, nothing stored, version unchanged, the tenant keeps working', async () => {
    const a = await g.tenant('compile-a');
    const before = await call(g.url, 'GET', '/v1/policies', { token: a.admin });
    const patterns = Array.from({ length: 500 }, (_, i) => `w${i}[a-z]{1,200}q`);
    const r = await call(g.url, 'POST', '/v1/policies', { token: a.admin, body: filter(patterns) });
    expect(expectEnvelope(r, 400, 'invalid_request').message).toMatch(/cannot be compiled/);
    const after = await call(g.url, 'GET', '/v1/policies', { token: a.admin });
    expect(after.body.total).toBe(0);
    expect(after.body.policy_version).toBe(before.body.policy_version);
    const d = await call(g.url, 'POST', '/v1/decide', { token: a.operator, body: { agent_id: 'x', action: { type: 'read' } } });
    expect(d.status).toBe(200);

    // Disabled, then enabled: the enable is the change that would break the set, and it is refused.
    const disabled = { ...filter(patterns), enabled: false };
    const c = await call(g.url, 'POST', '/v1/policies', { token: a.admin, body: disabled });
    expect(c.status).toBe(200);
    const en = await call(g.url, 'PUT', `/v1/policies/${c.body.id}`, { token: a.admin, body: { enabled: true } });
    expectEnvelope(en, 400, 'invalid_request');
    expect((await call(g.url, 'GET', `/v1/policies/${c.body.id}`, { token: a.admin })).body.enabled).toBe(false);
  });

  it('a stored set that fails to compile fails closed with a cached error, compiled once, until its policies change', async () => {
    const a = await g.tenant('compile-b');
    const ok = await call(g.url, 'POST', '/v1/policies', { token: a.admin, body: filter(['fine']) });
    // Written behind the API's back (as an older version or another process might have).
    const rec = g.gw.deps.policies.get('compile-b', ok.body.id)!;
    await g.gw.deps.store.policies.put(['compile-b', ok.body.id], { ...rec, rules: { ...rec.rules, patterns: Array.from({ length: 500 }, (_, i) => `w${i}[a-z]{1,200}q`) } });
    g.gw.deps.runtimes.sets.forget('compile-b');
    const compiles = g.gw.deps.runtimes.sets.compiles;
    for (let i = 0; i < 3; i++) {
      const d = await call(g.url, 'POST', '/v1/decide', { token: a.operator, body: { agent_id: 'x', action: { type: 'read' } } });
      expect(expectEnvelope(d, 500, 'internal_error').message).toMatch(/policy set cannot be compiled/);
    }
    expect(g.gw.deps.runtimes.sets.compiles - compiles).toBe(1);
    const del = await call(g.url, 'DELETE', `/v1/policies/${ok.body.id}`, { token: a.admin });
    expect(del.status).toBe(204);
    const d = await call(g.url, 'POST', '/v1/decide', { token: a.operator, body: { agent_id: 'x', action: { type: 'read' } } });
    expect(d.status).toBe(200);
  });
});

describe('evaluation time is budgeted per tenant', () => {
  let g: TestGateway;
  let up: MockUpstream;
  beforeAll(async () => {
    up = await new MockUpstream().start();
    // A small budget, so one costly request spends it: the refusal is what is asserted, not a duration.
    g = await startTestGateway({ upstreamBaseUrl: up.url, upstreamApiKey: 'sk-test', evalTimeBurstMs: 50, evalTimePerSecondMs: 1, evalWorkerTimeoutMs: 60_000 });
  });
  afterAll(async () => {
    await g.close();
    await up.close();
  });

  it("a tenant whose inputs cost more evaluation time than its budget is refused (429) while another tenant's calls go on", async () => {
    const a = await g.tenant('budget-a');
    const b = await g.tenant('budget-b');
    await call(g.url, 'POST', '/v1/policies/apply-pack', { token: a.admin, body: { pack: 'RUNTIME_PAID_POLICIES' } });
    await call(g.url, 'POST', '/v1/policies/apply-pack', { token: b.admin, body: { pack: 'RUNTIME_PAID_POLICIES' } });
    // Personal data in every sentence: the costliest text for the paid pack (every match is validated and redacted).
    const dense = 'mail ana@example.com card 4111 1111 1111 1111 cpf 123.456.789-09 ip 10.0.0.1. '.repeat(12_000);
    const send = (token: string, content: string) =>
      call(g.url, 'POST', '/v1/proxy/chat/completions', { token, headers: { 'x-svc-agent-id': 'agent-1' }, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content }] } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await send(a.operator, dense)).status);
    expect(statuses[0]).toBe(200);
    expect(statuses.slice(1)).toContain(429);
    const refused = await send(a.operator, 'hello');
    const e = expectEnvelope(refused, 429, 'rate_limit_exceeded');
    expect(e.message).toMatch(/evaluation time/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await send(b.operator, 'hello')).status).toBe(200);
  });
});

describe('large inputs are judged off the event loop', () => {
  let g: TestGateway;
  let up: MockUpstream;
  beforeAll(async () => {
    up = await new MockUpstream().start();
    // A generous worker time limit and evaluation-time budget: a loaded machine must not turn the large input into a
    // 413 or a 429 here (those limits have their own tests).
    g = await startTestGateway({ upstreamBaseUrl: up.url, upstreamApiKey: 'sk-test', evalWorkerTimeoutMs: 60_000, evalTimeBurstMs: 600_000 });
  });
  afterAll(async () => {
    await g.close();
    await up.close();
  });
  beforeEach(() => up.reset());

  const dense = (n: number) => 'mail ana@example.com card 4111 1111 1111 1111 cpf 123.456.789-09 ip 10.0.0.1. '.repeat(n);
  const send = (token: string, content: string) =>
    call(g.url, 'POST', '/v1/proxy/chat/completions', { token, headers: { 'x-svc-agent-id': 'agent-1' }, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content }] } });

  it("tenant B's small call is answered while tenant A's large input is still being judged, and A's input is still redacted", async () => {
    const a = await g.tenant('worker-a');
    const b = await g.tenant('worker-b');
    await call(g.url, 'POST', '/v1/policies/apply-pack', { token: a.admin, body: { pack: 'RUNTIME_PAID_POLICIES' } });
    await call(g.url, 'POST', '/v1/policies/apply-pack', { token: b.admin, body: { pack: 'RUNTIME_PAID_POLICIES' } });
    await send(a.operator, dense(1000)); // starts the worker
    up.reset();
    const aSent = performance.now();
    const big = send(a.operator, dense(12_000));
    await new Promise((r) => setTimeout(r, 20));
    const small = await send(b.operator, 'hello');
    const smallDone = performance.now() - aSent;
    const ra = await big;
    expect(small.status).toBe(200);
    expect(ra.status).toBe(200);
    // An ordering, not a time bound: B's whole call ended before A's judging did (A's governance time, counted from
    // when A arrived). Judged on the event loop, B could not even be read until A's judging was over.
    const aGovernanceMs = Number(ra.headers['x-svc-latency-ms']);
    expect(aGovernanceMs).toBeGreaterThan(100);
    expect(smallDone).toBeLessThan(aGovernanceMs);
    const forwarded = up.received.map((x) => JSON.stringify(x.body)).find((s) => s.length > 100_000) ?? '';
    expect(forwarded).toContain('[REDACTED:EMAIL]');
    expect(forwarded).not.toContain('ana@example.com');
  });

  it('a large input the worker cannot judge in time is refused (413, never forwarded), and the gateway keeps serving', async () => {
    const slow = await startTestGateway({ upstreamBaseUrl: up.url, upstreamApiKey: 'sk-test', evalWorkerTimeoutMs: 100 });
    try {
      const a = await slow.tenant('worker-slow');
      await call(slow.url, 'POST', '/v1/policies/apply-pack', { token: a.admin, body: { pack: 'RUNTIME_PAID_POLICIES' } });
      const r = await call(slow.url, 'POST', '/v1/proxy/chat/completions', {
        token: a.operator,
        headers: { 'x-svc-agent-id': 'agent-1' },
        body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: dense(12_000) }] },
      });
      expect(expectEnvelope(r, 413, 'payload_too_large').message).toMatch(/could not be judged within 100 ms/);
      expect(up.received.length).toBe(0);
      const ok = await call(slow.url, 'POST', '/v1/proxy/chat/completions', {
        token: a.operator,
        headers: { 'x-svc-agent-id': 'agent-1' },
        body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] },
      });
      expect(ok.status).toBe(200);
    } finally {
      await slow.close();
    }
  });
});
