import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { poll } from '../../shared/test/helpers/poll.js';
import { McpTestServer } from './helpers/mcp-test-server.js';
import { MockUpstream } from './helpers/mock-upstream.js';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

/**
 * The same fact is recorded the same way whichever door a call came through (the proxy, MCP, /v1/decide, events): a
 * suspended agent's refusal, a held answer, and every decision reaching the audit trail's observers.
 */
let t: TestGateway;
let provider: MockUpstream;
let mcp: McpTestServer;
const clients: Client[] = [];

beforeAll(async () => {
  provider = await new MockUpstream().start();
  mcp = await new McpTestServer().start();
  t = await startTestGateway({ upstreamBaseUrl: provider.url, mcpUpstreams: JSON.stringify({ crm: mcp.url }) });
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});
afterAll(async () => {
  await t?.close();
  await provider?.close();
  await mcp?.close();
});

interface Decision {
  decision_id: string;
  agent_id: string;
  execution_status: string;
  rule: string;
  risk_score: number;
  event_type: string;
}

async function decisions(admin: string, agent: string): Promise<Decision[]> {
  await t.gw.threadsCaughtUp();
  const r = await call(t.url, 'GET', '/admin/decisions?limit=100', { token: admin });
  expect(r.status).toBe(200);
  return (r.body.data as Decision[]).filter((d) => d.agent_id === agent);
}

async function connect(token: string, agent: string): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/v1/mcp/crm`), { requestInit: { headers: { authorization: `Bearer ${token}`, 'x-svc-agent-id': agent } } }));
  clients.push(client);
  return client;
}

const chat = (token: string, agent: string) =>
  call(t.url, 'POST', '/v1/proxy/chat/completions', { token, headers: { 'x-svc-agent-id': agent }, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] } });

describe('every door records the same fact the same way', () => {
  it("a suspended agent's refusal: DENY, rule agent_suspended, risk 0, on the proxy, MCP and /v1/decide alike", async () => {
    const tok = await t.tenant('doors-suspended');
    expect((await call(t.url, 'POST', '/v1/agents/register', { token: tok.admin, body: { agent_id: 'frozen', name: 'Frozen' } })).status).toBe(201);
    expect((await call(t.url, 'POST', '/v1/agents/frozen/suspend', { token: tok.admin })).status).toBe(200);

    expect((await chat(tok.operator, 'frozen')).status).toBe(403);
    const client = await connect(tok.operator, 'frozen');
    const refused = await client.callTool({ name: 'send_email', arguments: { to: 'a', body: 'b' } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpError);
    expect((await call(t.url, 'POST', '/v1/decide', { token: tok.operator, body: { agent_id: 'frozen', action: { type: 'tool_call', target: 'x' } } })).body.envelope.execution_status).toBe('DENY');

    const recorded = await decisions(tok.admin, 'frozen');
    const byDoor = new Map(recorded.map((d) => [d.event_type, d]));
    expect([...byDoor.keys()].sort()).toEqual(['decision', 'mcp.tools.call', 'proxy.chat.completions'].sort());
    for (const d of byDoor.values()) expect({ door: d.event_type, verdict: d.execution_status, rule: d.rule, risk: d.risk_score }).toEqual({ door: d.event_type, verdict: 'DENY', rule: 'agent_suspended', risk: 0 });
  });

  it('an answer an output policy holds: REQUIRE_APPROVAL with that policy as the rule and the risks combined, on the proxy and on MCP', async () => {
    const tok = await t.tenant('doors-held');
    const p = await call(t.url, 'POST', '/v1/policies', {
      token: tok.admin,
      body: { name: 'hold personal answers', type: 'content_filter', risk: 40, rules: { patterns: ['maria\\.souza'], action: 'REQUIRE_APPROVAL', target: 'output' } },
    });
    expect(p.status).toBe(200);
    const policyId = p.body.id as string;

    provider.next({ content: 'Write to maria.souza@example.com.' });
    const proxied = await chat(tok.operator, 'holder');
    expect(proxied.status).toBe(403);

    const client = await connect(tok.operator, 'holder');
    const held = (await client.callTool({ name: 'lookup_customer', arguments: { email: 'x@example.com' } }).catch((e: unknown) => e)) as McpError;
    expect(held).toBeInstanceOf(McpError);
    expect((held.data as { verdict: string }).verdict).toBe('REQUIRE_APPROVAL');

    const recorded = await decisions(tok.admin, 'holder');
    const proxyRecord = recorded.find((d) => d.event_type === 'proxy.chat.completions');
    const mcpRecord = recorded.find((d) => d.event_type === 'mcp.tools.call');
    expect(proxyRecord).toMatchObject({ execution_status: 'REQUIRE_APPROVAL', rule: policyId, risk_score: 40 });
    expect(mcpRecord).toMatchObject({ execution_status: 'REQUIRE_APPROVAL', rule: policyId, risk_score: 40 });
  });

  it("an event's decision reaches the audit trail's observers: the agent's risk score and the blocks counter move", async () => {
    const tok = await t.tenant('doors-events');
    expect((await call(t.url, 'POST', '/v1/agents/register', { token: tok.admin, body: { agent_id: 'reporter', name: 'Reporter' } })).status).toBe(201);
    const p = await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'exfil', type: 'content_filter', risk: 80, rules: { patterns: ['exfiltrate'], action: 'ESCALATE' } } });
    const policyId = p.body.id as string;
    const r = await call(t.url, 'POST', '/v1/events', { token: tok.operator, body: { event_type: 'note', payload: { text: 'tried to exfiltrate the db' }, metadata: { agent_id: 'reporter' } } });
    expect(r.body.envelope).toMatchObject({ execution_status: 'ESCALATE', risk_score: 80 });
    await t.gw.threadsCaughtUp();
    const agent = await poll(
      async () => {
        const a = await call(t.url, 'GET', '/v1/agents/reporter', { token: tok.viewer });
        return a.body.risk_score > 0 ? a.body : undefined;
      },
      { what: "the agent's risk score after its event" },
    );
    expect(agent.risk_score).toBeCloseTo(8, 5);
    const metrics = await call(t.url, 'GET', '/v1/telemetry/metrics', { token: tok.viewer });
    expect(metrics.text).toContain(`aduana_blocks_total{tenant="doors-events",rule="${policyId}"} 1`);
  });

  it('the same action through every door is recorded alike: verdict, rule, risk, the policies that judged it and what triggered', async () => {
    const tok = await t.tenant('doors-same');
    const p = await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'money', type: 'content_filter', risk: 70, rules: { patterns: ['wire the money'], action: 'ESCALATE' } } });
    const policyId = p.body.id as string;
    const text = 'please wire the money today';

    expect((await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: tok.operator, headers: { 'x-svc-agent-id': 'same' }, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] } })).status).toBe(403);
    const held = (await (await connect(tok.operator, 'same')).callTool({ name: 'send_email', arguments: { to: 'bank', body: text } }).catch((e: unknown) => e)) as McpError;
    expect(held).toBeInstanceOf(McpError);
    const decided = await call(t.url, 'POST', '/v1/decide', { token: tok.operator, body: { agent_id: 'same', action: { type: 'tool_call', target: 'send_email', payload: { to: 'bank', body: text } } } });
    expect(decided.body.envelope.execution_status).toBe('ESCALATE');
    const event = await call(t.url, 'POST', '/v1/events', { token: tok.operator, body: { event_type: 'tool_call', payload: { to: 'bank', body: text }, metadata: { agent_id: 'same' } } });
    expect(event.body.envelope.execution_status).toBe('ESCALATE');

    const recorded = await decisions(tok.admin, 'same');
    expect(recorded.map((d) => d.event_type).sort()).toEqual(['decision', 'mcp.tools.call', 'proxy.chat.completions', 'tool_call']);
    const full = await Promise.all(recorded.map(async (d) => (await call(t.url, 'GET', `/admin/decisions/${d.decision_id}`, { token: tok.admin })).body));
    const shapes = full.map((d: Record<string, unknown>) => ({
      agent: d['agent_id'],
      verdict: d['execution_status'],
      rule: d['rule'],
      risk: d['risk_score'],
      policies: d['policy_version'],
      evaluated: d['policies_evaluated'],
      triggered: (d['triggered'] as { policy_id?: string; policyId?: string; risk: number; action: string }[]).map((x) => [x.policy_id ?? x.policyId, x.action, x.risk]),
    }));
    for (const shape of shapes) expect(shape).toEqual({ ...shapes[0], agent: 'same', verdict: 'ESCALATE', rule: policyId, risk: 70, triggered: [[policyId, 'ESCALATE', 70]] });
  });
});
