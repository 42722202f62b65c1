import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

let t: TestGateway;
let n = 0;

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

/** A fresh tenant with the given policies; returns its admin token. */
async function tenantWith(policies: object[]): Promise<string> {
  const tok = await t.tenant(`decide-${++n}`);
  for (const body of policies) {
    const r = await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body });
    if (r.status !== 200) throw new Error(`policy rejected: ${r.text}`);
  }
  return tok.admin;
}

function decide(token: string, payload: object, extra: object = {}) {
  return call(t.url, 'POST', '/v1/decide', { token, body: { agent_id: 'agent-7', action: { type: 'tool_call', target: 'https://api.example.com/x', method: 'POST', payload }, ...extra } });
}

describe('POST /v1/decide envelope', () => {
  it('carries every field of the decision envelope with the right types', async () => {
    const token = await tenantWith([{ name: 'f', type: 'content_filter', risk: 10, rules: { patterns: ['never-matches-xyz'] } }]);
    const r = await decide(token, { text: 'hello' }, { context: { session_id: 's1', risk_budget: 50 } });
    expect(r.status).toBe(200);
    const e = r.body.envelope;
    expect(Object.keys(e).sort()).toEqual(['decision_id', 'execution_status', 'latency_ms', 'policies_evaluated', 'risk_score', 'tenant_id', 'timestamp', 'trace_id'].sort());
    expect(e.execution_status).toBe('ALLOW');
    expect(e.risk_score).toBe(0);
    expect(e.policies_evaluated).toBe(1);
    expect(e.tenant_id).toBe(`decide-${n}`);
    expect(typeof e.latency_ms).toBe('number');
    expect(e.latency_ms).toBeGreaterThanOrEqual(0);
    expect(new Date(e.timestamp).toISOString()).toBe(e.timestamp);
    expect(r.body.trace_id).toBe(e.trace_id);
    expect(r.headers['x-svc-trace-id']).toBe(e.trace_id);
    expect(r.headers['x-svc-policy']).toMatch(/^v\d+$/);
  });

  it('continues an incoming W3C traceparent', async () => {
    const token = await tenantWith([]);
    const r = await call(t.url, 'POST', '/v1/decide', {
      token,
      headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
      body: { agent_id: 'a', action: { type: 'x' } },
    });
    expect(r.body.trace_id).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(r.body.envelope.policies_evaluated).toBe(0);
  });

  it('refuses bodies that are not a DecideRequest (400) and a foreign tenant_id (403)', async () => {
    const token = await tenantWith([]);
    for (const body of [{}, { agent_id: 'a' }, { agent_id: 5, action: { type: 'x' } }, { agent_id: 'a', action: { target: 'x' } }, { agent_id: 'a', action: 'x' },
      { agent_id: 'a', action: { type: 'x', payload: [] } }, { agent_id: 'a', action: { type: 'x' }, context: { risk_budget: -1 } }, { agent_id: 'a', action: { type: 'x' }, context: { risk_budget: 'high' } },
      // Agent ids are ledger keys: control characters and more than 256 bytes are refused before anything is decided.
      { agent_id: 'bad\u0001agent', action: { type: 'x' } }, { agent_id: 'é'.repeat(200), action: { type: 'x' } }]) {
      expectEnvelope(await call(t.url, 'POST', '/v1/decide', { token, body }), 400, 'invalid_request');
    }
    expectEnvelope(await call(t.url, 'POST', '/v1/decide', { token, body: { agent_id: 'a', tenant_id: 'someone-else', action: { type: 'x' } } }), 403, 'permission_denied');
    expect((await call(t.url, 'POST', '/v1/decide', { token, body: { agent_id: 'a', tenant_id: `decide-${n}`, action: { type: 'x' } } })).status).toBe(200);
  });
});

describe('each policy type, triggering and not', () => {
  it('content_filter: DENY on a match (rule = the policy), ALLOW otherwise; case-insensitive flag honoured', async () => {
    const token = await tenantWith([{ name: 'sql', type: 'content_filter', risk: 90, rules: { patterns: ['\\bdrop\\s+table\\b'], action: 'DENY', case_insensitive: true } }]);
    const policyId = (await call(t.url, 'GET', '/v1/policies', { token })).body.data[0].id;
    const bad = await decide(token, { query: 'DROP   TABLE users;' });
    expect(bad.body.envelope.execution_status).toBe('DENY');
    expect(bad.body.envelope.risk_score).toBe(90);
    const rec = (await call(t.url, 'GET', '/admin/decisions?limit=1', { token })).body.data[0];
    expect(rec.rule).toBe(policyId);
    const ok = await decide(token, { query: 'SELECT * FROM tables' });
    expect(ok.body.envelope.execution_status).toBe('ALLOW');
    expect(ok.body.envelope.risk_score).toBe(0);
  });

  it('content_filter looks into nested payload strings, the target and the method', async () => {
    const token = await tenantWith([{ name: 'evil host', type: 'content_filter', risk: 50, rules: { patterns: ['evil\\.example'], action: 'ESCALATE' } }]);
    expect((await decide(token, { a: [{ b: { c: 'see https://evil.example/' } }] })).body.envelope.execution_status).toBe('ESCALATE');
    const viaTarget = await call(t.url, 'POST', '/v1/decide', { token, body: { agent_id: 'x', action: { type: 'http', target: 'https://evil.example/api' } } });
    expect(viaTarget.body.envelope.execution_status).toBe('ESCALATE');
  });

  it('rate_limit: the (limit+1)th action of an agent in the window is denied; other agents are not', async () => {
    const token = await tenantWith([{ name: 'rl', type: 'rate_limit', risk: 40, rules: { limit: 2, window_s: 60, scope: 'agent' } }]);
    const verdicts = [];
    for (let i = 0; i < 3; i++) verdicts.push((await decide(token, {})).body.envelope.execution_status);
    expect(verdicts).toEqual(['ALLOW', 'ALLOW', 'DENY']);
    const other = await call(t.url, 'POST', '/v1/decide', { token, body: { agent_id: 'other-agent', action: { type: 'x' } } });
    expect(other.body.envelope.execution_status).toBe('ALLOW');
  });

  it('rate_limit with tenant scope counts every agent together', async () => {
    const token = await tenantWith([{ name: 'rl', type: 'rate_limit', risk: 40, rules: { limit: 1, window_s: 60, scope: 'tenant' } }]);
    const first = await call(t.url, 'POST', '/v1/decide', { token, body: { agent_id: 'a1', action: { type: 'x' } } });
    const second = await call(t.url, 'POST', '/v1/decide', { token, body: { agent_id: 'a2', action: { type: 'x' } } });
    expect([first.body.envelope.execution_status, second.body.envelope.execution_status]).toEqual(['ALLOW', 'DENY']);
  });

  it('entropy_check: a leaked key is denied; prose, UUIDs and hex digests are not', async () => {
    const token = await tenantWith([{ name: 'secrets', type: 'entropy_check', risk: 70, rules: { min_length: 32, threshold_bits: 4.5 } }]);
    const leaked = await decide(token, { note: 'use key Zq8vLx2Rk9TbW4mYp7NcJd3Hs6GfA1Eu0QiOyVtKlB5rX' });
    expect(leaked.body.envelope.execution_status).toBe('DENY');
    for (const text of ['The quick brown fox jumps over the lazy dog again and again', '123e4567-e89b-12d3-a456-426614174000',
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa']) {
      expect((await decide(token, { note: text })).body.envelope.execution_status).toBe('ALLOW');
    }
  });

  it('pii_redaction: DENY blocks personal data; REDACT allows it but adds risk', async () => {
    const deny = await tenantWith([{ name: 'no pii', type: 'pii_redaction', risk: 60, rules: { entities: ['EMAIL', 'CREDIT_CARD'], action: 'DENY' } }]);
    expect((await decide(deny, { to: 'ana.silva@example.com' })).body.envelope.execution_status).toBe('DENY');
    expect((await decide(deny, { card: '4111 1111 1111 1111' })).body.envelope.execution_status).toBe('DENY');
    expect((await decide(deny, { card: '4111 1111 1111 1112' })).body.envelope.execution_status).toBe('ALLOW');
    expect((await decide(deny, { to: 'nobody' })).body.envelope.execution_status).toBe('ALLOW');
    const redact = await tenantWith([{ name: 'redact', type: 'pii_redaction', risk: 20, rules: { action: 'REDACT' } }]);
    const r = await decide(redact, { to: 'ana.silva@example.com' });
    expect(r.body.envelope.execution_status).toBe('ALLOW');
    expect(r.body.envelope.risk_score).toBe(20);
  });

  it('bond_enforcement: holds an action once the session\'s cumulative risk passes its budget', async () => {
    const token = await tenantWith([
      { name: 'flag', type: 'content_filter', risk: 30, rules: { patterns: ['transfer'], action: 'FLAG' } },
      { name: 'bond', type: 'bond_enforcement', risk: 50, rules: {} },
    ]);
    const ctx = { context: { session_id: 'sess-1', risk_budget: 50 } };
    const first = await decide(token, { op: 'transfer 10' }, ctx);
    expect(first.body.envelope.execution_status).toBe('ALLOW');
    expect(first.body.envelope.risk_score).toBe(30);
    const second = await decide(token, { op: 'transfer 10' }, ctx);
    expect(second.body.envelope.execution_status).toBe('REQUIRE_APPROVAL');
    expect(second.body.envelope.risk_score).toBe(65);
    const otherSession = await decide(token, { op: 'transfer 10' }, { context: { session_id: 'sess-2', risk_budget: 50 } });
    expect(otherSession.body.envelope.execution_status).toBe('ALLOW');
    const noBudget = await decide(token, { op: 'transfer 10' }, { context: { session_id: 'sess-3' } });
    expect(noBudget.body.envelope.execution_status).toBe('ALLOW');
  });

  it('hallucination_shield: an output check, evaluated but never triggered by an action', async () => {
    const token = await tenantWith([{ name: 'shield', type: 'hallucination_shield', risk: 30, rules: {} }]);
    const r = await decide(token, { text: 'see https://made-up.example/paper.pdf' });
    expect(r.body.envelope).toMatchObject({ execution_status: 'ALLOW', policies_evaluated: 1, risk_score: 0 });
  });

  it('budget: allows while the agent is under its budget, denies once the spend reaches it', async () => {
    const token = await tenantWith([{ name: 'budget', type: 'budget', risk: 50, rules: { max_cost_brl: 1, period: 'day' } }]);
    expect((await decide(token, {})).body.envelope.execution_status).toBe('ALLOW');
    t.gw.deps.runtimes.limits.addSpend(`decide-${n}`, 'agent-7', 1.25, Date.now());
    const r = await decide(token, {});
    expect(r.body.envelope.execution_status).toBe('DENY');
    const other = await call(t.url, 'POST', '/v1/decide', { token, body: { agent_id: 'thrifty', action: { type: 'x' } } });
    expect(other.body.envelope.execution_status).toBe('ALLOW');
  });

  it('disabled policies are not evaluated', async () => {
    const token = await tenantWith([{ name: 'off', type: 'content_filter', risk: 90, enabled: false, rules: { patterns: ['blocked'] } }]);
    const r = await decide(token, { text: 'blocked' });
    expect(r.body.envelope).toMatchObject({ execution_status: 'ALLOW', policies_evaluated: 0 });
  });
});

describe('verdict and risk combination (docs/decisions.md)', () => {
  it('takes the most severe verdict: DENY > ESCALATE > REQUIRE_APPROVAL > ALLOW', async () => {
    const token = await tenantWith([
      { name: 'esc', type: 'content_filter', risk: 10, rules: { patterns: ['alpha'], action: 'ESCALATE' } },
      { name: 'appr', type: 'content_filter', risk: 10, rules: { patterns: ['beta'], action: 'REQUIRE_APPROVAL' } },
      { name: 'deny', type: 'content_filter', risk: 10, rules: { patterns: ['gamma'], action: 'DENY' } },
    ]);
    expect((await decide(token, { t: 'beta' })).body.envelope.execution_status).toBe('REQUIRE_APPROVAL');
    expect((await decide(token, { t: 'alpha beta' })).body.envelope.execution_status).toBe('ESCALATE');
    expect((await decide(token, { t: 'alpha beta gamma' })).body.envelope.execution_status).toBe('DENY');
  });

  it('combines risks as 100 * (1 - prod(1 - r/100))', async () => {
    const token = await tenantWith([
      { name: 'f1', type: 'content_filter', risk: 50, rules: { patterns: ['one'], action: 'FLAG' } },
      { name: 'f2', type: 'content_filter', risk: 50, rules: { patterns: ['two'], action: 'FLAG' } },
    ]);
    const r = await decide(token, { t: 'one two' });
    expect(r.body.envelope).toMatchObject({ execution_status: 'ALLOW', risk_score: 75 });
  });

  it('a policy change takes effect on the next decision (recompiled at change time)', async () => {
    const token = await tenantWith([]);
    expect((await decide(token, { t: 'launch' })).body.envelope.execution_status).toBe('ALLOW');
    const p = await call(t.url, 'POST', '/v1/policies', { token, body: { name: 'nope', type: 'content_filter', risk: 20, rules: { patterns: ['launch'] } } });
    const after = await decide(token, { t: 'launch' });
    expect(after.body.envelope.execution_status).toBe('DENY');
    expect(after.headers['x-svc-policy']).toBe(p.headers['x-svc-policy']);
  });
});

describe('tool_access: a tool_call action is judged by its target, the tool name', () => {
  const toolCall = (token: string, target?: string, type = 'tool_call') =>
    call(t.url, 'POST', '/v1/decide', { token, body: { agent_id: 'agent-7', action: { type, ...(target === undefined ? {} : { target }) } } });
  const lastDecision = async (token: string) => (await call(t.url, 'GET', '/admin/decisions?limit=1', { token })).body.data[0];

  it('deny globs: a matching tool is DENY with the policy as rule; another tool, or an action that is no tool call, is ALLOW', async () => {
    const token = await tenantWith([{ name: 'no drops', type: 'tool_access', risk: 80, rules: { deny: ['drop_*'], action: 'DENY' } }]);
    const policyId = (await call(t.url, 'GET', '/v1/policies', { token })).body.data[0].id;
    const bad = await toolCall(token, 'drop_table');
    expect(bad.body.envelope).toMatchObject({ execution_status: 'DENY', risk_score: 80 });
    const rec = await lastDecision(token);
    expect(rec.rule).toBe(policyId);
    expect(rec.triggered).toEqual([expect.objectContaining({ policy_id: policyId, type: 'tool_access', action: 'DENY', risk: 80 })]);
    expect((await toolCall(token, 'read_table')).body.envelope).toMatchObject({ execution_status: 'ALLOW', risk_score: 0 });
    expect((await toolCall(token, 'drop_table', 'http_request')).body.envelope.execution_status).toBe('ALLOW');
  });

  it('allow globs: a tool matching none is triggered, with the policy\'s action (REQUIRE_APPROVAL); a call naming no tool matches none', async () => {
    const token = await tenantWith([{ name: 'read only', type: 'tool_access', risk: 40, rules: { allow: ['read_*', 'search'], action: 'REQUIRE_APPROVAL' } }]);
    for (const ok of ['read_table', 'search']) expect((await toolCall(token, ok)).body.envelope.execution_status, ok).toBe('ALLOW');
    for (const held of ['write_table', 'searching', undefined]) {
      expect((await toolCall(token, held)).body.envelope, String(held)).toMatchObject({ execution_status: 'REQUIRE_APPROVAL', risk_score: 40 });
    }
  });

  it('servers: a policy naming MCP servers leaves /v1/decide tool calls (of no server) alone', async () => {
    const token = await tenantWith([
      { name: 'crm', type: 'tool_access', risk: 90, rules: { deny: ['*'], servers: ['crm'], action: 'DENY' } },
      { name: 'any', type: 'tool_access', risk: 10, rules: { deny: ['rm_*'], action: 'DENY' } },
    ]);
    expect((await toolCall(token, 'delete_contact')).body.envelope).toMatchObject({ execution_status: 'ALLOW', risk_score: 0 });
    expect((await toolCall(token, 'rm_rf')).body.envelope).toMatchObject({ execution_status: 'DENY', risk_score: 10 });
  });

  it('bad rules are refused with 400 naming the field, and nothing is stored', async () => {
    const token = await tenantWith([]);
    const cases: [object, RegExp][] = [
      [{ action: 'DENY' }, /rules: .*"allow" or "deny"/],
      [{ deny: ['x'] }, /rules: missing required field "action"/],
      [{ deny: ['x'], action: 'FLAG' }, /rules\.action: must be one of DENY, REQUIRE_APPROVAL/],
      [{ deny: [], action: 'DENY' }, /rules\.deny:/],
      [{ allow: [''], action: 'DENY' }, /rules\.allow\.0:/],
      [{ deny: ['x'.repeat(201)], action: 'DENY' }, /rules\.deny\.0:/],
      [{ deny: Array.from({ length: 101 }, (_, i) => `t${i}`), action: 'DENY' }, /rules\.deny:/],
      [{ deny: [5], action: 'DENY' }, /rules\.deny\.0:/],
      [{ deny: ['x'], servers: ['not a name'], action: 'DENY' }, /rules\.servers\.0:/],
      [{ deny: ['x'], servers: [], action: 'DENY' }, /rules\.servers:/],
      [{ deny: ['x'], action: 'DENY', tools: ['y'] }, /rules: unknown field "tools"/],
    ];
    for (const [rules, message] of cases) {
      const r = await call(t.url, 'POST', '/v1/policies', { token, body: { name: 'bad', type: 'tool_access', risk: 10, rules } });
      expectEnvelope(r, 400, 'invalid_request');
      expect(r.body.error.message, JSON.stringify(rules)).toMatch(message);
    }
    expect((await call(t.url, 'GET', '/v1/policies', { token })).body.data).toEqual([]);
  });

  it('the policy-set version bumps on create and change, like any policy, and the next decision follows it', async () => {
    const token = await tenantWith([]);
    const before = await toolCall(token, 'drop_table');
    expect(before.body.envelope.execution_status).toBe('ALLOW');
    const p = await call(t.url, 'POST', '/v1/policies', { token, body: { name: 'no drops', type: 'tool_access', risk: 50, rules: { deny: ['drop_*'], action: 'DENY' } } });
    expect(p.status).toBe(200);
    expect(Number(p.headers['x-svc-policy']!.slice(1))).toBeGreaterThan(Number(before.headers['x-svc-policy']!.slice(1)));
    const after = await toolCall(token, 'drop_table');
    expect(after.body.envelope.execution_status).toBe('DENY');
    expect(after.headers['x-svc-policy']).toBe(p.headers['x-svc-policy']);
    const put = await call(t.url, 'PUT', `/v1/policies/${p.body.id}`, { token, body: { rules: { deny: ['truncate_*'], action: 'DENY' } } });
    expect(Number(put.headers['x-svc-policy']!.slice(1))).toBeGreaterThan(Number(p.headers['x-svc-policy']!.slice(1)));
    expect((await toolCall(token, 'drop_table')).body.envelope.execution_status).toBe('ALLOW');
    expect((await toolCall(token, 'truncate_logs')).body.envelope.execution_status).toBe('DENY');
  });
});
