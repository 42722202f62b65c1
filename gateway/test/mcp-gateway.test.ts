import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { poll } from '../../shared/test/helpers/poll.js';
import { McpTestServer } from './helpers/mcp-test-server.js';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

// The official MCP SDK on both sides of the sidecar: its client pointed at /v1/mcp/crm (nothing else changed), a real
// MCP server built with the same SDK on loopback (stateful sessions, SSE answers) behind it.

let t: TestGateway;
let server: McpTestServer;
let tok: Awaited<ReturnType<TestGateway['tenant']>>;
let pii: Awaited<ReturnType<TestGateway['tenant']>>;
const open: Client[] = [];

async function connect(token: string, agent = 'mcp-agent', name = 'crm'): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/v1/mcp/${name}`), {
    requestInit: { headers: { authorization: `Bearer ${token}`, 'x-svc-agent-id': agent } },
  });
  await client.connect(transport);
  open.push(client);
  return client;
}

type LedgerEntry = { event_type: string; metadata: Record<string, unknown>; payload: Record<string, unknown>; decision: { execution_status: string; rule: string } };

/** The tenant's ledger entry of a tools/call of `tool`, newest first. */
function toolEntry(admin: string, tool: string, outcome?: string): Promise<LedgerEntry> {
  return poll(
    async () => {
      const r = await call(t.url, 'GET', '/v1/events?limit=50&order=desc', { token: admin });
      return (r.body.events as LedgerEntry[]).find((e) => e.event_type === 'mcp.tools.call' && e.payload['tool'] === tool && (outcome === undefined || e.payload['outcome'] === outcome));
    },
    { what: `the ledger entry of the ${tool} call` },
  ) as Promise<LedgerEntry>;
}

const policy = (token: string, body: Record<string, unknown>) => call(t.url, 'POST', '/v1/policies', { token, body });

beforeAll(async () => {
  server = await new McpTestServer().start();
  t = await startTestGateway({ mcpUpstreams: JSON.stringify({ crm: { url: server.url, headers: { authorization: 'Bearer crm-server-secret' } } }) });
  tok = await t.tenant('mcp');
  pii = await t.tenant('mcp-pii');
  await policy(pii.admin, { name: 'pii', type: 'pii_redaction', risk: 20, rules: { action: 'REDACT', target: 'both' } });
});
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});
afterAll(async () => {
  await t?.close();
  await server?.close();
});

describe('the MCP gateway with the official SDK on both sides', () => {
  it('lists the tools and relays a call; the server gets the sidecar\'s credentials, never the PAT or the agent id; the call is in the ledger', async () => {
    const client = await connect(tok.operator);
    const tools = await client.listTools();
    expect(tools.tools.map((x) => x.name).sort()).toEqual(['count', 'crash', 'drop_table', 'internal_report', 'lookup_customer', 'send_email']);
    const r = await client.callTool({ name: 'send_email', arguments: { to: 'team', body: 'weekly report' } });
    expect(r.content).toEqual([{ type: 'text', text: 'sent to team' }]);
    for (const got of server.received) {
      expect(got.headers['authorization']).toBe('Bearer crm-server-secret');
      expect(JSON.stringify(got.headers)).not.toContain(tok.operator);
      expect(got.headers['x-svc-agent-id']).toBeUndefined();
    }
    const e = await toolEntry(tok.admin, 'send_email');
    expect(e.metadata['agent_id']).toBe('mcp-agent');
    expect(e.decision.execution_status).toBe('ALLOW');
    expect(e.payload).toMatchObject({ server: 'crm', tool: 'send_email', outcome: 'completed', input_redactions: 0 });
    expect(e.payload['arguments_sha256']).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(e)).not.toContain('weekly report');
    // The decision index (the console's decisions page reads it) and the metrics count it like any decision.
    const d = await call(t.url, 'GET', `/admin/decisions/${e.metadata['decision_id'] as string}`, { token: tok.admin });
    expect(d.body).toMatchObject({ event_type: 'mcp.tools.call', agent_id: 'mcp-agent', execution_status: 'ALLOW' });
    const metrics = await call(t.url, 'GET', '/v1/telemetry/metrics', { token: tok.admin });
    expect(metrics.text).toMatch(/aduana_decisions_total\{[^}]*tenant="mcp"[^}]*verdict="ALLOW"[^}]*\} [1-9]/);
  });

  it('PII in the arguments arrives redacted; PII in the result (text and structured content) comes back redacted', async () => {
    const client = await connect(pii.operator);
    const r = await client.callTool({ name: 'lookup_customer', arguments: { email: 'ana.silva@example.com' } });
    expect(server.calls.at(-1)).toEqual({ tool: 'lookup_customer', args: { email: '[REDACTED:EMAIL]' } });
    const text = (r.content as { text: string }[])[0]!.text;
    expect(text).not.toContain('maria.souza@example.com');
    expect(text).not.toContain('91234-5678');
    expect(text).toContain('[REDACTED:EMAIL]');
    expect(r.structuredContent).toEqual({ email: '[REDACTED:EMAIL]', backup: '[REDACTED:EMAIL]' });
    const e = await toolEntry(pii.admin, 'lookup_customer');
    expect(e.payload['input_redactions']).toBe(1);
    expect(e.payload['output_redactions']).toBeGreaterThanOrEqual(3);
    // Per entity too (entity and count, never the value): the decision page shows them.
    expect(e.payload['input_redaction_entities']).toEqual({ EMAIL: 1 });
    const out = e.payload['output_redaction_entities'] as Record<string, number>;
    expect(out['EMAIL']).toBe(2);
    expect(Object.values(out).reduce((a, b) => a + b, 0)).toBe(e.payload['output_redactions']);
  });

  it('a resource read is redacted on its way back', async () => {
    const client = await connect(pii.operator);
    const r = await client.readResource({ uri: 'crm://notes' });
    expect(JSON.stringify(r.contents)).not.toContain('joao.pereira@example.org');
    expect((r.contents[0] as { text: string }).text).toBe('Call back [REDACTED:EMAIL] tomorrow.');
  });

  it('a content-filtered argument never reaches the server: a JSON-RPC error with verdict, rule and trace id; recorded as blocked', async () => {
    const admin = await t.tenant('mcp-filter');
    const p = await policy(admin.admin, { name: 'no exfil', type: 'content_filter', risk: 90, rules: { patterns: ['(?i)export all customer records'], action: 'DENY' } });
    const client = await connect(admin.operator);
    const before = server.calls.length;
    const err = await client.callTool({ name: 'send_email', arguments: { to: 'x', body: 'please EXPORT ALL CUSTOMER RECORDS' } }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    const e = err as McpError;
    expect(e.code).toBe(-32003);
    expect(e.data).toMatchObject({ verdict: 'DENIED', rule: p.body.id });
    expect((e.data as { trace_id: string }).trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(server.calls.length).toBe(before);
    const entry = await toolEntry(admin.admin, 'send_email', 'blocked');
    expect(entry.decision).toMatchObject({ execution_status: 'DENY', rule: p.body.id });
  });

  it('an output filter that blocks a result replaces it with an error; the ledger says so', async () => {
    const admin = await t.tenant('mcp-outblock');
    await policy(admin.admin, { name: 'no internal hosts', type: 'content_filter', risk: 80, rules: { patterns: ['corp\\.internal'], action: 'DENY', target: 'output' } });
    const client = await connect(admin.operator);
    const err = await client.callTool({ name: 'internal_report', arguments: {} }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32003);
    expect(String((err as Error).message)).not.toContain('corp.internal');
    await toolEntry(admin.admin, 'internal_report', 'blocked');
  });

  it('a server that dies mid-answer gives the client an error, and the sidecar stays up', async () => {
    const client = await connect(tok.operator);
    const err = await client.callTool({ name: 'crash', arguments: {} }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    await toolEntry(tok.admin, 'crash', 'upstream_error');
    const again = await connect(tok.operator);
    const r = await again.callTool({ name: 'send_email', arguments: { to: 'a', body: 'b' } });
    expect(r.content).toEqual([{ type: 'text', text: 'sent to a' }]);
  });

  it("another tenant presenting a session's id is told it does not exist, and the server is not asked", async () => {
    const client = await connect(tok.operator);
    await client.listTools();
    const sid = (client.transport as StreamableHTTPClientTransport).sessionId!;
    // (The client's own GET stream may reach the server meanwhile: only tools/list requests are counted.)
    const lists = () => server.received.filter((x) => (x.body as { method?: string } | undefined)?.method === 'tools/list').length;
    const before = lists();
    const other = await t.tenant('mcp-other');
    const r = await call(t.url, 'POST', '/v1/mcp/crm', {
      token: other.operator,
      headers: { 'x-svc-agent-id': 'thief', 'mcp-session-id': sid, accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe(-32001);
    expect(lists()).toBe(before);
  });
});

describe('tool_access on MCP calls', () => {
  it('tools/list hides the denied tools; a denied tool never reaches the server and is recorded under its policy', async () => {
    const admin = await t.tenant('mcp-tools');
    const p = await policy(admin.admin, { name: 'no destructive tools', type: 'tool_access', risk: 90, rules: { deny: ['drop_*', 'crash'], servers: ['crm'], action: 'DENY' } });
    expect(p.status, p.text).toBe(200);
    const client = await connect(admin.operator);
    const tools = await client.listTools();
    expect(tools.tools.map((x) => x.name).sort()).toEqual(['count', 'internal_report', 'lookup_customer', 'send_email']);
    const before = server.calls.length;
    const err = await client.callTool({ name: 'drop_table', arguments: { name: 'customers' } }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32003);
    expect((err as McpError).data).toMatchObject({ verdict: 'DENIED', rule: p.body.id });
    expect(server.calls.length).toBe(before);
    const e = await toolEntry(admin.admin, 'drop_table', 'blocked');
    expect(e.decision).toMatchObject({ execution_status: 'DENY', rule: p.body.id });
  });

  it('REQUIRE_APPROVAL holds the call with its decision id; once an admin approves, the same call goes through once', async () => {
    const admin = await t.tenant('mcp-approval');
    await policy(admin.admin, { name: 'mail needs a human', type: 'tool_access', risk: 50, rules: { deny: ['send_email'], action: 'REQUIRE_APPROVAL' } });
    const client = await connect(admin.operator);
    const args = { to: 'board', body: 'quarterly numbers' };
    const before = server.calls.length;
    const held = await client.callTool({ name: 'send_email', arguments: args }).then(() => null, (e: unknown) => e);
    expect(held).toBeInstanceOf(McpError);
    expect((held as McpError).code).toBe(-32004);
    const decisionId = ((held as McpError).data as { decision_id: string; verdict: string }).decision_id;
    expect(((held as McpError).data as { verdict: string }).verdict).toBe('REQUIRE_APPROVAL');
    // Retried before anyone resolved it: still held, under the same decision.
    const again = await client.callTool({ name: 'send_email', arguments: args }).then(() => null, (e: unknown) => e);
    expect(((again as McpError).data as { decision_id: string }).decision_id).toBe(decisionId);
    expect(server.calls.length).toBe(before);
    const resolved = await call(t.url, 'POST', `/admin/decisions/${decisionId}/resolve`, { token: admin.admin, body: { resolution: 'APPROVED', note: 'ok' } });
    expect(resolved.status, resolved.text).toBe(200);
    const r = await client.callTool({ name: 'send_email', arguments: args });
    expect(r.content).toEqual([{ type: 'text', text: 'sent to board' }]);
    expect(server.calls.at(-1)).toEqual({ tool: 'send_email', args });
    // The approval was used: the next identical call is held again, under a new decision.
    const third = await client.callTool({ name: 'send_email', arguments: args }).then(() => null, (e: unknown) => e);
    expect((third as McpError).code).toBe(-32004);
    expect(((third as McpError).data as { decision_id: string }).decision_id).not.toBe(decisionId);
    // A different call (other arguments) is not covered by the approval.
    expect(server.calls.filter((c) => c.tool === 'send_email' && c.args['to'] === 'board')).toHaveLength(1);
    const e = await toolEntry(admin.admin, 'send_email', 'completed');
    expect(e.decision.rule).toBe(`approved:${decisionId}`);
  });
});

describe('the Streamable HTTP transport, relayed faithfully', () => {
  it('progress notifications reach the client while a call runs (redacted like results), and the call completes', async () => {
    const client = await connect(pii.operator);
    const seen: { progress: number; message?: string }[] = [];
    const r = await client.callTool({ name: 'count', arguments: { to: 3 } }, undefined, { onprogress: (p) => seen.push(p) });
    expect(r.content).toEqual([{ type: 'text', text: 'counted to 3' }]);
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(seen[0]!.message).toBe('step 1 for [REDACTED:EMAIL]');
  });

  it("the session's headers go both ways: the server's session id and protocol version reach the client; DELETE ends the session", async () => {
    const client = await connect(tok.operator);
    const transport = client.transport as StreamableHTTPClientTransport;
    const sid = transport.sessionId!;
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    await client.listTools();
    const listed = server.received.filter((x) => (x.body as { method?: string } | undefined)?.method === 'tools/list').at(-1)!;
    expect(listed.headers['mcp-session-id']).toBe(sid);
    expect(listed.headers['mcp-protocol-version']).toBeTruthy();
    await transport.terminateSession();
    expect(server.received.at(-1)!.method).toBe('DELETE');
    // The session is gone for the gateway too: the id is refused without asking the server.
    const r = await call(t.url, 'POST', '/v1/mcp/crm', { token: tok.operator, headers: { 'x-svc-agent-id': 'mcp-agent', 'mcp-session-id': sid, accept: 'application/json, text/event-stream' }, body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    expect(r.status).toBe(404);
  });

  it('a GET opens the server\'s stream through the gateway, Last-Event-ID passed on', async () => {
    const client = await connect(tok.operator);
    const sid = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const res = await fetch(`${t.url}/v1/mcp/crm`, {
      headers: { authorization: `Bearer ${tok.operator}`, 'x-svc-agent-id': 'mcp-agent', 'mcp-session-id': sid, accept: 'text/event-stream', 'last-event-id': 'evt-7', 'mcp-protocol-version': '2025-06-18' },
      signal: AbortSignal.timeout(2000),
    }).catch((e: unknown) => e);
    const gets = server.received.filter((x) => x.method === 'GET' && x.headers['last-event-id'] === 'evt-7');
    expect(gets).toHaveLength(1);
    expect(gets[0]!.headers['authorization']).toBe('Bearer crm-server-secret');
    if (res instanceof Response) await res.body?.cancel();
  });
});

describe('bad input on the MCP gateway', () => {
  const h = { 'x-svc-agent-id': 'raw', accept: 'application/json, text/event-stream' };
  it('no PAT is a 401; an unknown server a 404; neither reaches a server', async () => {
    const before = server.received.length;
    const none = await call(t.url, 'POST', '/v1/mcp/crm', { headers: h, body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    expect(none.status).toBe(401);
    const unknown = await call(t.url, 'POST', '/v1/mcp/nope', { token: tok.operator, headers: h, body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    expect(unknown.status).toBe(404);
    expect(server.received.length).toBe(before);
  });

  it('malformed JSON, a batch, a message that is not JSON-RPC, tools/call params of the wrong type: JSON-RPC errors, nothing sent', async () => {
    const before = server.received.length;
    const bad = await call(t.url, 'POST', '/v1/mcp/crm', { token: tok.operator, headers: h, rawBody: '{"jsonrpc": "2.0", "id": 1, ' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe(-32700);
    const batch = await call(t.url, 'POST', '/v1/mcp/crm', { token: tok.operator, headers: h, body: [{ jsonrpc: '2.0', id: 1, method: 'ping' }] });
    expect(batch.status).toBe(400);
    expect(batch.body.error.code).toBe(-32600);
    const notRpc = await call(t.url, 'POST', '/v1/mcp/crm', { token: tok.operator, headers: h, body: { id: 1, method: 'ping' } });
    expect(notRpc.body.error.code).toBe(-32600);
    const params = await call(t.url, 'POST', '/v1/mcp/crm', { token: tok.operator, headers: h, body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 42 } } });
    expect(params.status).toBe(200);
    expect(params.body).toMatchObject({ id: 7, error: { code: -32602 } });
    expect(server.received.length).toBe(before);
  });

  it('a method outside the protocol is refused with method-not-found, and never reaches the server', async () => {
    const client = await connect(tok.operator);
    const sid = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const r = await call(t.url, 'POST', '/v1/mcp/crm', {
      token: tok.operator,
      headers: { ...h, 'x-svc-agent-id': 'mcp-agent', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
      body: { jsonrpc: '2.0', id: 9, method: 'vendor/frobnicate', params: { x: 1 } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: 9, error: { code: -32601 } });
    expect(server.received.some((x) => (x.body as { method?: string } | undefined)?.method === 'vendor/frobnicate')).toBe(false);
  });

  it('5 MB of arguments: past what the tenant\'s policies judge it is refused, never sent unjudged', async () => {
    const client = await connect(pii.operator);
    const before = server.calls.length;
    const err = await client.callTool({ name: 'send_email', arguments: { to: 'x', body: 'y'.repeat(5 * 1024 * 1024) } }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message)).toMatch(/413|judge at most/);
    expect(server.calls.length).toBe(before);
  });
});
