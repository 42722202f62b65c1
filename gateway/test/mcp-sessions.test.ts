import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@aduana/shared';
import { loadGatewayConfig, startGateway, type RunningGateway } from '../src/index.js';
import { McpTestServer } from './helpers/mcp-test-server.js';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { threadingUnderTest } from './helpers/threading-under-test.js';

// The gateway's MCP session table: each tenant within its own share (its plan's, MCP_SESSIONS_MAX), each session bound
// to the tenant and the agent that opened it, and kept across a restart. The official SDK's client on one side, a real
// SDK server on the other.

const ACCEPT = 'application/json, text/event-stream';
const open: Client[] = [];

async function connect(base: string, token: string, agent: string | null, sessionId?: string): Promise<Client> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (agent !== null) headers['x-svc-agent-id'] = agent;
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/v1/mcp/crm`), { requestInit: { headers }, ...(sessionId ? { sessionId } : {}) }));
  open.push(client);
  return client;
}

const sessionOf = (c: Client) => (c.transport as StreamableHTTPClientTransport).sessionId as string;

/** A raw `initialize` through the gateway: the session id the server opened. */
async function initialize(base: string, token: string, agent: string): Promise<string> {
  const r = await call(base, 'POST', '/v1/mcp/crm', {
    token,
    headers: { 'x-svc-agent-id': agent, accept: ACCEPT },
    body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } } },
  });
  expect(r.status, r.text).toBe(200);
  return r.headers['mcp-session-id'] as string;
}

/** A ping in a session: the HTTP status the gateway answers (404: unknown to the gateway). */
async function ping(base: string, token: string, agent: string, sessionId: string): Promise<number> {
  const r = await call(base, 'POST', '/v1/mcp/crm', {
    token,
    headers: { 'x-svc-agent-id': agent, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18', accept: ACCEPT },
    body: { jsonrpc: '2.0', id: 2, method: 'ping' },
  });
  return r.status;
}

let server: McpTestServer;
const pings = () => server.received.filter((x) => (x.body as { method?: string } | undefined)?.method === 'ping').length;
beforeAll(async () => {
  server = await new McpTestServer({ json: true }).start();
});
afterEach(async () => {
  for (const c of open.splice(0)) await c.close().catch(() => {});
});
afterAll(async () => {
  await server?.close();
});

describe("each tenant has its own share of the session table, request threads serving the agents' port beside it", () => {
  let t: TestGateway;
  beforeAll(async () => {
    // A professional tenant may hold 5 sessions here; an enterprise one keeps the plan table's 10,000.
    t = await startTestGateway({ gatewayThreads: 2, agentPort: 0, ledgerWriter: 'thread', mcpUpstreams: JSON.stringify({ crm: server.url }), mcpSessionsMax: 'professional=5' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("a tenant opening more sessions than its share forgets its own oldest, never another tenant's", async () => {
    const a = await t.tenant('share-a');
    const b = await t.tenant('share-b', 'professional');
    const victim = await connect(t.url, a.operator, 'bot-a');
    await victim.callTool({ name: 'send_email', arguments: { to: 'x', body: 'before' } });

    const flood: string[] = [];
    for (let i = 0; i < 12; i++) flood.push(await initialize(t.url, b.operator, 'flooder'));
    expect(new Set(flood).size).toBe(12);

    // The other tenant's session is untouched.
    const r = await victim.callTool({ name: 'send_email', arguments: { to: 'x', body: 'after' } });
    expect(r.content).toEqual([{ type: 'text', text: 'sent to x' }]);
    // The flooding tenant holds its share, its newest: the 7 oldest are unknown now (404), the server is not asked.
    const asked = pings();
    const statuses: number[] = [];
    for (const sid of flood) statuses.push(await ping(t.url, b.operator, 'flooder', sid));
    expect(statuses).toEqual([...Array<number>(7).fill(404), ...Array<number>(5).fill(200)]);
    expect(pings() - asked).toBe(5);
  });

  it('a use keeps a session: the least recently used one is forgotten, not the first opened', async () => {
    const b = await t.tenant('share-lru', 'professional');
    const first = await initialize(t.url, b.operator, 'bot');
    const others: string[] = [];
    for (let i = 0; i < 4; i++) others.push(await initialize(t.url, b.operator, 'bot'));
    expect(await ping(t.url, b.operator, 'bot', first)).toBe(200);
    await initialize(t.url, b.operator, 'bot');
    expect(await ping(t.url, b.operator, 'bot', first)).toBe(200);
    expect(await ping(t.url, b.operator, 'bot', others[0] as string)).toBe(404);
  });
});

describe('a session is its agent\'s', () => {
  let t: TestGateway;
  let tenant: Record<string, string>;
  let bot1: string;
  let bot2: string;
  beforeAll(async () => {
    t = await startTestGateway({ mcpUpstreams: JSON.stringify({ crm: server.url }) });
    tenant = await t.tenant('agents');
    const bound = (agentId: string) => t.gw.deps.tokens.create({ tenantId: 'agents', role: 'operator', name: agentId, expiresInDays: 1, agentId });
    bot1 = (await bound('bot1')).token;
    bot2 = (await bound('bot2')).token;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("a token bound to another agent can neither call, resume nor end it: 404 as for an unknown session, the server not asked", async () => {
    const client = await connect(t.url, bot1, null);
    await client.listTools();
    const sid = sessionOf(client);

    const used = await call(t.url, 'POST', '/v1/mcp/crm', {
      token: bot2,
      headers: { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18', accept: ACCEPT },
      body: { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'send_email', arguments: { to: 'boss', body: 'from bot2' } } },
    });
    expect(used.status).toBe(404);
    expect(used.body.error.code).toBe(-32001);
    const unknown = await call(t.url, 'POST', '/v1/mcp/crm', {
      token: bot2,
      headers: { 'mcp-session-id': 'no-such-session', 'mcp-protocol-version': '2025-06-18', accept: ACCEPT },
      body: { jsonrpc: '2.0', id: 5, method: 'ping' },
    });
    // Told exactly what an unknown session is told: nothing says the session exists.
    expect(used.body).toEqual(unknown.body);

    const resumed = await call(t.url, 'GET', '/v1/mcp/crm', { token: bot2, headers: { 'mcp-session-id': sid, accept: 'text/event-stream', 'last-event-id': 'e1' } });
    expect(resumed.status).toBe(404);
    const ended = await call(t.url, 'DELETE', '/v1/mcp/crm', { token: bot2, headers: { 'mcp-session-id': sid } });
    expect(ended.status).toBe(404);
    // An unbound token of the same tenant naming another agent is refused alike.
    const named = await call(t.url, 'DELETE', '/v1/mcp/crm', { token: tenant['operator'] as string, headers: { 'x-svc-agent-id': 'bot2', 'mcp-session-id': sid } });
    expect(named.status).toBe(404);
    // None reached the server (the client's own stream may: only these requests are looked for).
    const reached = server.received.filter((x) => x.headers['mcp-session-id'] === sid && (x.headers['last-event-id'] === 'e1' || x.method === 'DELETE' || (x.body as { method?: string } | undefined)?.method === 'ping'));
    expect(reached).toEqual([]);

    // bot1's session still works.
    const r = await client.callTool({ name: 'send_email', arguments: { to: 'team', body: 'from bot1' } });
    expect(r.content).toEqual([{ type: 'text', text: 'sent to team' }]);
    expect(server.calls.filter((c) => c.args['body'] === 'from bot2')).toHaveLength(0);
  });
});

describe('bindings survive a restart', () => {
  it('a client resuming with its Mcp-Session-Id after the gateway restarted reaches its session; other agents still do not', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'aduana-mcp-sessions-'));
    const config = loadGatewayConfig({}, { dataDir, port: 0, authPort: 0, quietBootstrap: true, logLevel: 'silent', mcpUpstreams: JSON.stringify({ crm: server.url }), ...threadingUnderTest() });
    const start = () => startGateway({ config, logger: createLogger('test', { level: 'silent' }) });
    let gw: RunningGateway = await start();
    try {
      await gw.deps.tenants.setPlan('default', 'enterprise', 'test');
      const token = gw.bootstrapToken as string;
      const before = await connect(gw.url, token, 'bot1');
      await before.callTool({ name: 'send_email', arguments: { to: 'a', body: 'before the restart' } });
      const sid = sessionOf(before);
      // The client goes away without ending its session (close() sends no DELETE), as a process that restarts would.
      open.splice(open.indexOf(before), 1);
      await before.close();

      await gw.close();
      gw = await start();

      const after = await connect(gw.url, token, 'bot1', sid);
      const r = await after.callTool({ name: 'send_email', arguments: { to: 'a', body: 'after the restart' } });
      expect(r.content).toEqual([{ type: 'text', text: 'sent to a' }]);
      expect(server.received.at(-1)?.headers['mcp-session-id']).toBe(sid);
      // Still bound to its agent.
      expect(await ping(gw.url, token, 'bot2', sid)).toBe(404);
      // And still ended by its agent's DELETE, after which the id is unknown.
      await (after.transport as StreamableHTTPClientTransport).terminateSession();
      expect(await ping(gw.url, token, 'bot1', sid)).toBe(404);
      await after.close();
    } finally {
      await gw.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('MCP_SESSIONS_MAX', () => {
  it('takes plan=n pairs over the plan table; anything else stops the start, naming the setting', () => {
    for (const bad of ['gold=5', 'community', 'community=0', 'community=-1', 'community=5;enterprise=6', 'community=99999999']) {
      expect(() => loadGatewayConfig({ MCP_SESSIONS_MAX: bad }), bad).toThrow(/MCP_SESSIONS_MAX/);
    }
    expect(() => loadGatewayConfig({ MCP_SESSIONS_MAX: 'community=20, enterprise=50000' })).not.toThrow();
  });
});
