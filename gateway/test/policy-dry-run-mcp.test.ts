import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poll } from '../../shared/test/helpers/poll.js';
import { McpTestServer } from './helpers/mcp-test-server.js';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

let t: TestGateway;
let server: McpTestServer;
let tok: Awaited<ReturnType<TestGateway['tenant']>>;

beforeAll(async () => {
  server = await new McpTestServer().start();
  t = await startTestGateway({ mcpUpstreams: JSON.stringify({ crm: { url: server.url } }) });
  tok = await t.tenant('mcp-dry');
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/v1/mcp/crm`), { requestInit: { headers: { authorization: `Bearer ${tok.operator}`, 'x-svc-agent-id': 'mcp-agent' } } }));
  await client.callTool({ name: 'send_email', arguments: { to: 'team', body: 'weekly report' } });
  await client.callTool({ name: 'lookup_customer', arguments: { email: 'ana@example.com' } });
  await client.close();
  await poll(async () => (await call(t.url, 'GET', '/v1/events?event_type=mcp.tools.call&limit=1', { token: tok.admin })).body.total >= 2 || undefined, { what: 'both tool calls chained' });
});
afterAll(async () => {
  await t?.close();
  await server?.close();
});

const dryRun = (policy: Record<string, unknown>) => call(t.url, 'POST', '/v1/policies/dry-run', { token: tok.admin, body: { policy } });
type Row = { event_type: string; old_verdict: string; new_verdict: string | null; changed: boolean | null; rejudged: boolean; why: string };

describe('a dry run on recorded MCP tool calls', () => {
  it('judges a tool_access candidate by the server and tool the ledger kept', async () => {
    const r = await dryRun({ name: 'no sending', type: 'tool_access', risk: 40, rules: { deny: ['send_*'], servers: ['crm'], action: 'REQUIRE_APPROVAL' } });
    expect(r.status).toBe(200);
    const rows = r.body.actions as Row[];
    expect(rows.map((x) => [x.event_type, x.old_verdict, x.new_verdict, x.changed])).toEqual([
      ['mcp.tools.call', 'ALLOW', 'ALLOW', false],
      ['mcp.tools.call', 'ALLOW', 'REQUIRE_APPROVAL', true],
    ]);
    expect(r.body.totals).toMatchObject({ actions: 2, rejudged: 2, changed: 1, changes: { 'ALLOW→REQUIRE_APPROVAL': 1 } });
    // Another server's policy does not judge crm's tools.
    const other = await dryRun({ name: 'no sending elsewhere', type: 'tool_access', risk: 40, rules: { deny: ['send_*'], servers: ['mail'], action: 'DENY' } });
    expect(other.body.totals).toMatchObject({ actions: 2, rejudged: 2, changed: 0 });
  });

  it('does not pretend to judge a content filter on calls whose arguments the ledger keeps only as a hash', async () => {
    const r = await dryRun({ name: 'weekly', type: 'content_filter', risk: 40, rules: { patterns: ['weekly'], action: 'DENY' } });
    expect(r.body.totals).toMatchObject({ actions: 2, rejudged: 0, not_rejudged: 2, changed: 0 });
    for (const x of r.body.actions as Row[]) expect(x).toMatchObject({ rejudged: false, new_verdict: null, changed: null, why: expect.stringContaining('SHA-256') });
  });
});
