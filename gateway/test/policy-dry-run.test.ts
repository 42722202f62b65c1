import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectEnvelope, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

let t: TestGateway;
let a: Awaited<ReturnType<TestGateway['tenant']>>;

beforeAll(async () => {
  t = await startTestGateway();
  a = await t.tenant('tenant-dry');
});
afterAll(() => t.close());

const denyShell = { name: 'no shell', type: 'tool_access', risk: 50, rules: { deny: ['shell.*'], action: 'DENY' } };
const secrets = { name: 'no secrets', type: 'content_filter', risk: 60, rules: { patterns: ['(?i)secret'], action: 'DENY' } };

async function decideTool(target: string): Promise<string> {
  const r = await call(t.url, 'POST', '/v1/decide', { token: a.operator, body: { agent_id: 'bot', action: { type: 'tool_call', target } } });
  expect(r.status).toBe(200);
  return r.body.envelope.decision_id as string;
}

/** The ledger's head and the policy set's version: what saving nothing must leave as it was. */
async function state(): Promise<{ size: number; hash: string; version: string; policies: unknown }> {
  const verify = await call(t.url, 'GET', '/v1/events/verify', { token: a.admin });
  const list = await call(t.url, 'GET', '/v1/policies?enabled=all', { token: a.admin });
  return { size: verify.body.head.size, hash: verify.body.head.hash, version: list.body.policy_version, policies: list.body.data };
}

/** Decisions are chained in the ledger's next group commit: waits until `n` are there. */
async function chained(n: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await call(t.url, 'GET', '/v1/events?event_type=decision&limit=1', { token: a.admin });
    if (r.body.total >= n) return;
    await new Promise((res) => setTimeout(res, 10));
  }
  throw new Error(`fewer than ${n} decisions chained`);
}

describe('POST /v1/policies/dry-run', () => {
  it('re-judges recorded tool calls with an edited policy, reports the verdicts that change, and saves nothing', async () => {
    const created = await call(t.url, 'POST', '/v1/policies', { token: a.admin, body: denyShell });
    expect(created.status).toBe(200);
    const policyId = created.body.id as string;
    const shell = await decideTool('shell.exec');
    const files = await decideTool('files.read');
    const text = await call(t.url, 'POST', '/v1/decide', { token: a.operator, body: { agent_id: 'bot', action: { type: 'message', payload: { text: 'hello' } } } });
    await chained(3);
    const before = await state();

    // The edit denies files.* instead of shell.*: shell.exec would now be allowed, files.read denied.
    const r = await call(t.url, 'POST', '/v1/policies/dry-run', {
      token: a.admin,
      body: { policy_id: policyId, policy: { rules: { deny: ['files.*'], action: 'DENY' } }, limit: 10 },
    });
    expect(r.status).toBe(200);
    const byId = new Map<string, Record<string, unknown>>(r.body.actions.map((x: Record<string, unknown>) => [x['decision_id'], x]));
    expect(byId.get(shell)).toMatchObject({ old_verdict: 'DENY', new_verdict: 'ALLOW', changed: true, rejudged: true });
    expect(byId.get(files)).toMatchObject({ old_verdict: 'ALLOW', new_verdict: 'DENY', changed: true, rejudged: true, new_rule: 'no shell' });
    expect(byId.get(text.body.envelope.decision_id)).toMatchObject({ old_verdict: 'ALLOW', new_verdict: 'ALLOW', changed: false, rejudged: true });
    expect(r.body.totals).toMatchObject({ actions: 3, rejudged: 3, not_rejudged: 0, changed: 2 });

    // Saving nothing changed nothing: the same policies, policy-set version and ledger head.
    expect(await state()).toEqual(before);
    const again = await call(t.url, 'POST', '/v1/decide', { token: a.operator, body: { agent_id: 'bot', action: { type: 'tool_call', target: 'shell.exec' } } });
    expect(again.body.envelope.execution_status).toBe('DENY');
  });

  it('says which recorded actions a text-reading policy cannot re-judge (the ledger keeps only hashes of their text)', async () => {
    const r = await call(t.url, 'POST', '/v1/policies/dry-run', { token: a.admin, body: { policy: secrets } });
    expect(r.status).toBe(200);
    expect(r.body.totals.rejudged).toBe(r.body.totals.actions - r.body.totals.not_rejudged);
    const open = r.body.actions.filter((x: { rejudged: boolean }) => !x.rejudged);
    expect(open.length).toBeGreaterThan(0);
    for (const x of open) expect(x).toMatchObject({ new_verdict: null, changed: null, why: expect.stringContaining('text') });
    // An action already denied by another policy stays denied whatever the candidate does.
    const denied = r.body.actions.filter((x: { old_verdict: string }) => x.old_verdict === 'DENY');
    expect(denied.length).toBeGreaterThan(0);
    for (const x of denied) expect(x).toMatchObject({ rejudged: true, new_verdict: 'DENY', changed: false });
  });

  it('answers 400 to an invalid policy, 404 to an unknown policy id, 403 to a viewer; none changes anything', async () => {
    // The first test's last decision may still be in the ledger's next group commit: the snapshot waits for it.
    await chained(4);
    const before = await state();
    expectEnvelope(await call(t.url, 'POST', '/v1/policies/dry-run', { token: a.admin, body: { policy: { name: 'x', type: 'tool_access', risk: 5, rules: { action: 'DENY' } } } }), 400, 'invalid_request');
    expectEnvelope(await call(t.url, 'POST', '/v1/policies/dry-run', { token: a.admin, body: { policy: secrets, limit: 1001 } }), 400, 'invalid_request');
    expectEnvelope(await call(t.url, 'POST', '/v1/policies/dry-run', { token: a.admin, body: { policy: { ...secrets, rules: { patterns: ['(a)\\1'] } } } }), 400, 'invalid_request');
    expectEnvelope(await call(t.url, 'POST', '/v1/policies/dry-run', { token: a.admin, body: { policy_id: 'pol_nope', policy: { risk: 1 } } }), 404, 'not_found');
    expectEnvelope(await call(t.url, 'POST', '/v1/policies/dry-run', { token: a.viewer, body: { policy: secrets } }), 403, 'permission_denied');
    expect(await state()).toEqual(before);
  });
});
