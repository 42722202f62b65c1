import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { poll } from '../../shared/test/helpers/poll.js';
import { call, expectEnvelope, type CallResult, type TestGateway } from './helpers/start-test-gateway.js';
import { McpTestServer } from './helpers/mcp-test-server.js';
import { closeGatewayWithMock, startGatewayWithMock, type GatewayWithMock } from './helpers/gateway-with-mock.js';

/**
 * The agent a call acts as (issue 36, item 2): its `x-svc-agent-id`, else the agent its token is bound to
 * (`token create --agent`), else the sidecar's own SIDECAR_AGENT_ID. An OpenAI SDK cannot set a header from the
 * environment: with a bound token or the setting, the agent changes only its base URL.
 */
let plain: GatewayWithMock;
let sidecar: GatewayWithMock;
let mcp: McpTestServer;

beforeAll(async () => {
  mcp = await new McpTestServer().start();
  plain = await startGatewayWithMock({ upstreamApiKey: 'sk-test', mcpUpstreams: JSON.stringify({ crm: mcp.url }) });
  sidecar = await startGatewayWithMock({ upstreamApiKey: 'sk-test', sidecarAgentId: 'side-bot' });
});
afterAll(async () => {
  await closeGatewayWithMock(plain);
  await closeGatewayWithMock(sidecar);
  await mcp?.close();
});
beforeEach(() => {
  plain.mock.reset();
  sidecar.mock.reset();
});

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

function proxy(t: TestGateway, token: string, agent?: string): Promise<CallResult> {
  return call(t.url, 'POST', '/v1/proxy/chat/completions', { token, body: chat, ...(agent === undefined ? {} : { headers: { 'x-svc-agent-id': agent } }) });
}

/** A bound token, made as `aduana token create --agent` makes it. */
async function boundToken(t: TestGateway, tenant: string, agent: string): Promise<string> {
  return (await t.gw.deps.tokens.create({ tenantId: tenant, role: 'operator', name: `${agent} token`, expiresInDays: 1, agentId: agent })).token;
}

/** The agent the decision of a proxied call was recorded for (the index is written just after the answer). */
async function recordedAgent(t: TestGateway, admin: string, r: CallResult): Promise<string> {
  const id = r.headers['x-svc-trace-id'] as string;
  const d = await poll(() => call(t.url, 'GET', `/admin/decisions/${id}`, { token: admin }), { what: `decision ${id}`, until: (x) => x.status === 200 });
  return d.body.agent_id as string;
}

describe('the agent id of a proxied call', () => {
  it('without x-svc-agent-id, a token bound to an agent acts as that agent (no SIDECAR_AGENT_ID)', async () => {
    const { t, mock } = plain;
    const tok = await t.tenant('bound-only');
    const bound = await boundToken(t, 'bound-only', 'support-bot');
    const r = await proxy(t, bound);
    expect(r.status, r.text).toBe(200);
    expect(mock.received).toHaveLength(1);
    expect(mock.received[0]!.headers['x-svc-agent-id']).toBeUndefined();
    expect(await recordedAgent(t, tok.admin, r)).toBe('support-bot');
    // The header may still name it; naming another agent is refused as before.
    expect((await proxy(t, bound, 'support-bot')).status).toBe(200);
    expect(expectEnvelope(await proxy(t, bound, 'other-bot'), 403, 'permission_denied').rule).toBe('agent_binding');
  });

  it('an unbound token without x-svc-agent-id and no SIDECAR_AGENT_ID is still a 400 that says how to name the agent', async () => {
    const { t, mock } = plain;
    const tok = await t.tenant('unnamed');
    const e = expectEnvelope(await proxy(t, tok.operator), 400, 'invalid_request');
    expect(e.message).toMatch(/x-svc-agent-id/);
    expect(e.message).toMatch(/SIDECAR_AGENT_ID/);
    expect(mock.received).toHaveLength(0);
  });

  it('with SIDECAR_AGENT_ID, an unbound token without the header acts as that agent; the header wins; a bound token wins over the setting', async () => {
    const { t, mock } = sidecar;
    const tok = await t.tenant('beside');
    const byDefault = await proxy(t, tok.operator);
    expect(byDefault.status, byDefault.text).toBe(200);
    expect(await recordedAgent(t, tok.admin, byDefault)).toBe('side-bot');

    const named = await proxy(t, tok.operator, 'named-bot');
    expect(named.status).toBe(200);
    expect(await recordedAgent(t, tok.admin, named)).toBe('named-bot');

    const bound = await boundToken(t, 'beside', 'bound-bot');
    const byToken = await proxy(t, bound);
    expect(byToken.status).toBe(200);
    expect(await recordedAgent(t, tok.admin, byToken)).toBe('bound-bot');
    // The header must still agree with a bound token, whatever the setting says.
    expect(expectEnvelope(await proxy(t, bound, 'side-bot'), 403, 'permission_denied').rule).toBe('agent_binding');
    expect(mock.received).toHaveLength(3);
    // The agent is in the registry under the id the call acted as.
    expect((await call(t.url, 'GET', '/v1/agents/side-bot', { token: tok.viewer })).status).toBe(200);
  });

  it('SIDECAR_AGENT_ID must be a valid agent id: a bad value stops start-up naming it', async () => {
    await expect(startGatewayWithMock({ sidecarAgentId: 'bad\u0001id' })).rejects.toThrow(/SIDECAR_AGENT_ID/);
  });
});

describe('the agent id of an MCP call', () => {
  it('without x-svc-agent-id, a token bound to an agent calls tools as that agent', async () => {
    const { t } = plain;
    const tok = await t.tenant('mcp-bound');
    const bound = await boundToken(t, 'mcp-bound', 'tool-bot');
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/v1/mcp/crm`), { requestInit: { headers: { authorization: `Bearer ${bound}` } } }));
    try {
      const r = await client.callTool({ name: 'send_email', arguments: { to: 'team', body: 'hello' } });
      expect(r.content).toEqual([{ type: 'text', text: 'sent to team' }]);
    } finally {
      await client.close();
    }
    const entry = await poll(
      async () => ((await call(t.url, 'GET', '/v1/events?event_type=mcp.tools.call', { token: tok.admin })).body.events as Array<{ metadata: Record<string, unknown> }>)[0],
      { what: 'the ledger entry of the tools/call' },
    );
    expect(entry!.metadata['agent_id']).toBe('tool-bot');
  });
});
