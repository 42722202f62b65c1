import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '@aduana/shared';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

/** Issue 34, "Who changed what?": every admin action is chained in the tenant's ledger (actor, action, target, digests). */
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

type Entry = { seq: number; event_type: string; payload: Record<string, unknown>; metadata: Record<string, unknown>; decision: unknown };
const entriesOf = async (token: string, eventType: string) => (await call(t.url, 'GET', `/v1/events?event_type=${eventType}`, { token })).body.events as Entry[];
const digest = (view: unknown) => createHash('sha256').update(canonicalJson(view)).digest('hex');

/** The one entry of `action`, checked: its actor, target, digests and the request's trace id. */
async function expectOne(token: string, action: string, actorBy: string, target: string, trace: string | undefined): Promise<Entry> {
  const entries = await entriesOf(token, action);
  expect(entries, action).toHaveLength(1);
  const e = entries[0]!;
  expect(e.decision).toBeNull();
  expect(e.payload).toMatchObject({ action, target, actor: { by: actorBy } });
  expect(e.metadata).toEqual({ trace_id: trace });
  return e;
}

describe('admin actions in the ledger', () => {
  it('policy create, update, delete and pack apply: one entry each, with the policy views digested', async () => {
    const tok = await t.tenant('audit-policies');
    const adminId = t.gw.deps.tokens.findByToken(tok.admin)!.id;
    const created = await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'no wires', type: 'content_filter', risk: 40, rules: { patterns: ['wire money'], action: 'DENY' } } });
    expect(created.status, created.text).toBe(200);
    const id = created.body.id as string;
    const first = (await call(t.url, 'GET', `/v1/policies/${id}`, { token: tok.viewer })).body;
    let e = await expectOne(tok.viewer, 'policy.created', adminId, id, created.headers['x-svc-trace-id']);
    expect(e.payload).toMatchObject({ before: null, after: digest(first) });

    const updated = await call(t.url, 'PUT', `/v1/policies/${id}`, { token: tok.admin, body: { risk: 60 } });
    expect(updated.status, updated.text).toBe(200);
    const second = (await call(t.url, 'GET', `/v1/policies/${id}`, { token: tok.viewer })).body;
    e = await expectOne(tok.viewer, 'policy.updated', adminId, id, updated.headers['x-svc-trace-id']);
    expect(e.payload).toMatchObject({ before: digest(first), after: digest(second) });

    const deleted = await call(t.url, 'DELETE', `/v1/policies/${id}`, { token: tok.admin });
    expect(deleted.status).toBe(204);
    e = await expectOne(tok.viewer, 'policy.deleted', adminId, id, deleted.headers['x-svc-trace-id']);
    expect(e.payload).toMatchObject({ before: digest(second), after: null });

    const pack = await call(t.url, 'POST', '/v1/policies/apply-pack', { token: tok.admin, body: { pack: 'FREE_TIER_POLICIES' } });
    expect(pack.status, pack.text).toBe(200);
    e = await expectOne(tok.viewer, 'policy.pack_applied', adminId, 'FREE_TIER_POLICIES', pack.headers['x-svc-trace-id']);
    expect(e.payload['after']).toBe(digest(pack.body.created));

    // A refused change chains nothing.
    expect((await call(t.url, 'PUT', `/v1/policies/${id}`, { token: tok.admin, body: { risk: 70 } })).status).toBe(404);
    expect((await call(t.url, 'POST', '/v1/policies', { token: tok.operator, body: { name: 'x', type: 'content_filter', risk: 1, rules: { patterns: ['x'], action: 'DENY' } } })).status).toBe(403);
    expect(await entriesOf(tok.viewer, 'policy.updated')).toHaveLength(1);
    expect(await entriesOf(tok.viewer, 'policy.created')).toHaveLength(1);
    expect((await call(t.url, 'GET', '/v1/events/verify', { token: tok.viewer })).body.ok).toBe(true);
  });

  it('token create, user create and disable, agent suspend and resume: chained, never a secret', async () => {
    const tok = await t.tenant('audit-people');
    const adminId = t.gw.deps.tokens.findByToken(tok.admin)!.id;
    const minted = await call(t.authUrl, 'POST', '/token', { token: tok.admin, body: { name: 'ci', role: 'viewer' } });
    expect(minted.status, minted.text).toBe(200);
    const e = await expectOne(tok.viewer, 'token.created', adminId, minted.body.id, minted.headers['x-svc-trace-id']);
    const record = t.gw.deps.tokens.get(minted.body.id)!;
    const text = JSON.stringify(e);
    expect(text).not.toContain(minted.body.token);
    expect(text).not.toContain(record.last4);
    expect(e.payload['after']).toMatch(/^[0-9a-f]{64}$/);

    const user = await call(t.url, 'POST', '/admin/users', { token: tok.admin, body: { email: 'ana@example.com', name: 'Ana', role: 'viewer', password: 'a long enough password' } });
    expect(user.status, user.text).toBe(201);
    const u = await expectOne(tok.viewer, 'user.created', adminId, user.body.id, user.headers['x-svc-trace-id']);
    expect(u.payload).toMatchObject({ before: null, after: digest(user.body) });
    expect(JSON.stringify(u)).not.toContain('ana@example.com');
    expect(JSON.stringify(u)).not.toContain('a long enough password');

    const disabled = await call(t.url, 'POST', `/admin/users/${user.body.id}/disable`, { token: tok.admin });
    expect(disabled.status).toBe(200);
    const d = await expectOne(tok.viewer, 'user.disabled', adminId, user.body.id, disabled.headers['x-svc-trace-id']);
    expect(d.payload).toMatchObject({ before: digest(user.body), after: digest(disabled.body) });

    expect((await call(t.url, 'POST', '/v1/agents', { token: tok.operator, body: { agent_id: 'bot-1' } })).status).toBeLessThan(300);
    const suspended = await call(t.url, 'POST', '/v1/agents/bot-1/suspend', { token: tok.admin });
    expect(suspended.status, suspended.text).toBe(200);
    const s = await expectOne(tok.viewer, 'agent.suspended', adminId, 'bot-1', suspended.headers['x-svc-trace-id']);
    expect(s.payload).toMatchObject({ before: digest({ agent_id: 'bot-1', suspended: false }), after: digest({ agent_id: 'bot-1', suspended: true }) });
    const resumed = await call(t.url, 'POST', '/v1/agents/bot-1/resume', { token: tok.admin });
    expect(resumed.status).toBe(200);
    await expectOne(tok.viewer, 'agent.resumed', adminId, 'bot-1', resumed.headers['x-svc-trace-id']);

    expect((await call(t.url, 'POST', '/admin/users/no-such-user/disable', { token: tok.admin })).status).toBe(404);
    expect(await entriesOf(tok.viewer, 'user.disabled')).toHaveLength(1);
    expect((await call(t.url, 'GET', '/v1/events/verify', { token: tok.viewer })).body.ok).toBe(true);
  });
});
