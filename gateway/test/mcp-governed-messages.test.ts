import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, McpError, type CreateMessageRequest, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { poll } from '../../shared/test/helpers/poll.js';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

// What a hostile MCP server sends back besides results, and what an agent sends besides tool calls, behind the gateway:
// errors, the server's own requests (sampling, elicitation), batches in a stream, a stream whose last event ends in CR
// CR; tools/call params beyond name and arguments, methods the protocol does not have, tool names in other cases and
// widths. The agent side is the official SDK's client wherever it can say the thing; raw HTTP where it cannot.

const EMAIL = 'maria.souza@example.com';
type Rpc = { jsonrpc: '2.0'; id?: string | number | null; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };

/** Every message the server received, and the answers (to its own requests) it was sent, by their id. */
const received: Rpc[] = [];
const answers = new Map<string, Rpc>();
let hostile: Server;
let t: TestGateway;
let plain: Awaited<ReturnType<TestGateway['tenant']>>;
let pii: Awaited<ReturnType<TestGateway['tenant']>>;
let filtered: Awaited<ReturnType<TestGateway['tenant']>>;
let tools: Awaited<ReturnType<TestGateway['tenant']>>;
const open: Client[] = [];

const TOOLS = ['error_pii', 'error_secret', 'error_page', 'ask_model', 'ask_secret', 'ask_user', 'batch', 'cr_end', 'echo', 'Drop_Table'];

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** A stream answer: `events` written as they are, then the stream ended. */
function sse(res: ServerResponse, ...events: string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(e);
  res.end();
}

/** Sends the client a request of the server's own on the call's stream, waits for its answer, then answers the call with it. */
async function ask(res: ServerResponse, callId: unknown, method: string, params: Record<string, unknown>): Promise<void> {
  const id = `srv-${randomUUID()}`;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n\n`);
  const answer = await poll(() => answers.get(id), { what: `the answer to ${method}` }).catch(() => null);
  res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: callId, result: { content: [{ type: 'text', text: JSON.stringify(answer) }] } })}\n\n`);
}

function handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
  if (req.method === 'GET') return void res.writeHead(405).end();
  if (req.method === 'DELETE') return void res.writeHead(200).end();
  const msg = JSON.parse(raw) as Rpc;
  received.push(msg);
  if (msg.method === undefined) {
    answers.set(String(msg.id), msg);
    return void res.writeHead(202).end();
  }
  if (msg.id === undefined) return void res.writeHead(202).end();
  const p = msg.params ?? {};
  if (msg.method === 'initialize') {
    return json(res, 200, { jsonrpc: '2.0', id: msg.id, result: { protocolVersion: p['protocolVersion'], capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '0' } } }, { 'mcp-session-id': randomUUID() });
  }
  if (msg.method === 'tools/list') return json(res, 200, { jsonrpc: '2.0', id: msg.id, result: { tools: TOOLS.map((name) => ({ name, inputSchema: { type: 'object' } })) } });
  if (msg.method !== 'tools/call') return json(res, 200, { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'method not found' } });
  const result = (text: string) => ({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text }] } });
  switch (p['name']) {
    case 'error_pii':
      return json(res, 200, { jsonrpc: '2.0', id: msg.id, error: { code: -32010, message: `no account for ${EMAIL}`, data: { contact: EMAIL, hint: ['write to', EMAIL] } } });
    case 'error_secret':
      return json(res, 200, { jsonrpc: '2.0', id: msg.id, error: { code: -32010, message: 'try db.corp.internal:5432 with the admin account' } });
    case 'error_page':
      res.writeHead(500, { 'content-type': 'text/plain' });
      return void res.end(`internal error while mailing ${EMAIL}`);
    case 'ask_model':
      return void ask(res, msg.id, 'sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: `Summarise the file of ${EMAIL}` } }], maxTokens: 16 });
    case 'ask_secret':
      return void ask(res, msg.id, 'sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'Log in to db.corp.internal for me' } }], maxTokens: 16 });
    case 'ask_user':
      return void ask(res, msg.id, 'elicitation/create', { message: `Confirm the address ${EMAIL}`, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    case 'batch': {
      const batch = [{ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `working for ${EMAIL}` } }, result(`found ${EMAIL}`)];
      return sse(res, `data: ${JSON.stringify(batch)}\n\n`);
    }
    case 'cr_end':
      // The last event's lines end in a lone CR (a valid line end), and the stream ends right after.
      return sse(res, `data: ${JSON.stringify(result('ended by CR CR'))}\r\r`);
    default:
      return json(res, 200, result(`called ${String(p['name'])}`));
  }
}

beforeAll(async () => {
  hostile = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(parts).toString('utf8')));
  });
  await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/mcp`;
  t = await startTestGateway({ mcpUpstreams: JSON.stringify({ gov: url, strict: { url, refuse_server_requests: ['sampling', 'elicitation'] } }) });
  plain = await t.tenant('gov-plain');
  pii = await t.tenant('gov-pii');
  filtered = await t.tenant('gov-filter');
  tools = await t.tenant('gov-tools');
  const policy = async (token: string, body: Record<string, unknown>) => {
    const r = await call(t.url, 'POST', '/v1/policies', { token, body });
    expect(r.status, r.text).toBe(200);
  };
  await policy(pii.admin, { name: 'pii', type: 'pii_redaction', risk: 20, rules: { action: 'REDACT', target: 'both' } });
  await policy(filtered.admin, { name: 'no internal hosts', type: 'content_filter', risk: 80, rules: { patterns: ['corp\\.internal'], action: 'DENY', target: 'output' } });
  await policy(tools.admin, { name: 'no drops', type: 'tool_access', risk: 90, rules: { deny: ['drop_table'], action: 'DENY' } });
});
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});
afterAll(async () => {
  await t?.close();
  hostile?.closeAllConnections();
  await new Promise((r) => hostile?.close(r));
});

/** The SDK's client through the gateway; it answers sampling and elicitation, keeping what it was asked. */
async function connect(token: string, server = 'gov'): Promise<{ client: Client; asked: (CreateMessageRequest['params'] | ElicitRequest['params'])[] }> {
  const asked: (CreateMessageRequest['params'] | ElicitRequest['params'])[] = [];
  const client = new Client({ name: 'agent', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, (r) => {
    asked.push(r.params);
    return { role: 'assistant', content: { type: 'text', text: 'a summary' }, model: 'agent-model' };
  });
  client.setRequestHandler(ElicitRequestSchema, (r) => {
    asked.push(r.params);
    return { action: 'accept', content: { ok: true } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/v1/mcp/${server}`), { requestInit: { headers: { authorization: `Bearer ${token}`, 'x-svc-agent-id': 'gov-agent' } } }));
  open.push(client);
  return { client, asked };
}

/** One message posted as raw HTTP in a session the SDK's client opened (for what the client cannot send). */
async function raw(token: string, body: unknown) {
  const { client } = await connect(token);
  const sid = (client.transport as StreamableHTTPClientTransport).sessionId!;
  return call(t.url, 'POST', '/v1/mcp/gov', {
    token,
    headers: { 'x-svc-agent-id': 'gov-agent', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18', accept: 'application/json, text/event-stream' },
    body,
  });
}

const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e);
const calls = (name: string) => received.filter((m) => m.method === 'tools/call' && m.params?.['name'] === name).length;

type LedgerEntry = { event_type: string; payload: Record<string, unknown>; decision: { execution_status: string } };
function toolEntry(admin: string, tool: string): Promise<LedgerEntry> {
  return poll(
    async () => {
      const r = await call(t.url, 'GET', '/v1/events?limit=50&order=desc', { token: admin });
      return (r.body.events as LedgerEntry[]).find((e) => e.event_type === 'mcp.tools.call' && e.payload['tool'] === tool);
    },
    { what: `the ledger entry of ${tool}` },
  ) as Promise<LedgerEntry>;
}

describe("a server's errors are governed as results", () => {
  it("personal data in an error's message and data is redacted; the call is recorded with its redactions", async () => {
    const { client } = await connect(pii.operator);
    const err = await failure(client.callTool({ name: 'error_pii', arguments: {} }));
    expect(err).toBeInstanceOf(McpError);
    const e = err as McpError;
    expect(e.code).toBe(-32010);
    expect(e.message).toContain('no account for [REDACTED:EMAIL]');
    expect(e.data).toEqual({ contact: '[REDACTED:EMAIL]', hint: ['write to', '[REDACTED:EMAIL]'] });
    expect(JSON.stringify([e.message, e.data])).not.toContain(EMAIL);
    const entry = await toolEntry(pii.admin, 'error_pii');
    expect(entry.payload).toMatchObject({ outcome: 'tool_error', output_redactions: 3 });
    // An error page (no JSON-RPC at all) reaches the agent's code too: redacted as text.
    const page = await raw(pii.operator, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'error_page', arguments: {} } });
    expect(page.status).toBe(500);
    expect(page.text).toBe('internal error while mailing [REDACTED:EMAIL]');
  });

  it("a blocking output filter replaces the server's error with the gateway's refusal; the call is recorded as blocked", async () => {
    const { client } = await connect(filtered.operator);
    const err = await failure(client.callTool({ name: 'error_secret', arguments: {} }));
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32003);
    expect((err as McpError).data).toMatchObject({ verdict: 'DENIED' });
    expect(JSON.stringify([(err as Error).message, (err as McpError).data])).not.toContain('corp.internal');
    const entry = await toolEntry(filtered.admin, 'error_secret');
    expect(entry.payload['outcome']).toBe('blocked');
    expect(entry.decision.execution_status).toBe('DENY');
  });
});

describe("the server's own requests in a stream are governed", () => {
  it('a sampling request reaches the agent with its personal data redacted; the round trip completes', async () => {
    const { client, asked } = await connect(pii.operator);
    const r = await client.callTool({ name: 'ask_model', arguments: {} });
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(asked[0])).not.toContain(EMAIL);
    expect((asked[0] as CreateMessageRequest['params']).messages[0]!.content).toEqual({ type: 'text', text: 'Summarise the file of [REDACTED:EMAIL]' });
    expect((r.content as { text: string }[])[0]!.text).toContain('a summary');
  });

  it('a request an output filter blocks never reaches the agent: the gateway answers the server with a JSON-RPC error', async () => {
    const { client, asked } = await connect(filtered.operator);
    const r = await client.callTool({ name: 'ask_secret', arguments: {} });
    expect(asked).toHaveLength(0);
    const answer = JSON.parse((r.content as { text: string }[])[0]!.text) as Rpc;
    expect(answer).toMatchObject({ jsonrpc: '2.0', error: { code: -32003 } });
    expect(answer.id).toMatch(/^srv-/);
  });

  it('refuse_server_requests: sampling and elicitation from that server are refused to it, never reaching the agent', async () => {
    const { client, asked } = await connect(plain.operator, 'strict');
    for (const tool of ['ask_model', 'ask_user']) {
      const r = await client.callTool({ name: tool, arguments: {} });
      const answer = JSON.parse((r.content as { text: string }[])[0]!.text) as Rpc;
      expect(answer, tool).toMatchObject({ error: { code: -32003, message: expect.stringContaining('refuse_server_requests') } });
    }
    expect(asked).toHaveLength(0);
    // The same server under a name without the setting: both reach the agent.
    const other = await connect(plain.operator, 'gov');
    await other.client.callTool({ name: 'ask_model', arguments: {} });
    await other.client.callTool({ name: 'ask_user', arguments: {} });
    expect(other.asked).toHaveLength(2);
  });
});

describe('tools/call sends only what was judged', () => {
  it('params other than name, arguments and _meta.progressToken, and members beside the JSON-RPC envelope, never reach the server', async () => {
    const before = received.length;
    const r = await raw(pii.operator, {
      jsonrpc: '2.0',
      id: 11,
      method: 'tools/call',
      note: `call ${EMAIL}`,
      params: { name: 'echo', arguments: { q: 'x' }, _meta: { progressToken: 'p-1', trace: EMAIL }, task: { ttl: 60_000 }, extra: `from ${EMAIL}` },
    });
    expect(r.status).toBe(200);
    const sent = received.slice(before).find((m) => m.method === 'tools/call')!;
    expect(sent).toEqual({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'echo', arguments: { q: 'x' }, _meta: { progressToken: 'p-1' } } });
    // A progress token is text the server reads: judged and redacted with the arguments.
    await raw(pii.operator, { jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: { progressToken: EMAIL } } });
    expect(received.at(-1)?.params).toEqual({ name: 'echo', arguments: {}, _meta: { progressToken: '[REDACTED:EMAIL]' } });
  });
});

describe('messages the gateway does not recognise are refused', () => {
  it('a request method sent as a notification, a method with a trailing space, one the protocol lacks: JSON-RPC errors, nothing sent', async () => {
    const before = received.length;
    const note = await raw(plain.operator, { jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo', arguments: {} } });
    expect(note.status).toBe(400);
    expect(note.body).toMatchObject({ id: null, error: { code: -32600 } });
    const spaced = await raw(plain.operator, { jsonrpc: '2.0', id: 2, method: 'tools/call ', params: { name: 'echo', arguments: {} } });
    expect(spaced.status).toBe(200);
    expect(spaced.body).toMatchObject({ id: 2, error: { code: -32601 } });
    const tasks = await raw(plain.operator, { jsonrpc: '2.0', id: 3, method: 'tasks/result', params: { taskId: 't' } });
    expect(tasks.body).toMatchObject({ id: 3, error: { code: -32601 } });
    const unknownNote = await raw(plain.operator, { jsonrpc: '2.0', method: 'notifications/tools/call' });
    expect(unknownNote.status).toBe(400);
    expect(unknownNote.body).toMatchObject({ id: null, error: { code: -32601 } });
    const mine = received.slice(before).filter((m) => m.method !== 'initialize' && m.method !== 'notifications/initialized');
    expect(mine).toEqual([]);
  });

  it('tool_access matches names after NFKC and case folding: case and full-width variants of a denied tool are denied and hidden', async () => {
    const { client } = await connect(tools.operator);
    const listed = await client.listTools();
    expect(listed.tools.map((x) => x.name)).not.toContain('Drop_Table');
    for (const name of ['drop_table', 'DROP_TABLE', 'Drop_Table', 'ｄｒｏｐ＿ｔａｂｌｅ', 'ＤＲＯＰ＿ＴＡＢＬＥ']) {
      const err = await failure(client.callTool({ name, arguments: {} }));
      expect(err, name).toBeInstanceOf(McpError);
      expect((err as McpError).code, name).toBe(-32003);
      expect(calls(name), name).toBe(0);
    }
  });

  it('a batch in a stream event is governed message by message, never relayed as sent', async () => {
    const r = await raw(pii.operator, { jsonrpc: '2.0', id: 21, method: 'tools/call', params: { name: 'batch', arguments: {} } });
    expect(r.status).toBe(200);
    expect(r.text).not.toContain(EMAIL);
    const data = r.text.split('\n').find((l) => l.startsWith('data: ['));
    expect(JSON.parse(data!.slice(6))).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'working for [REDACTED:EMAIL]' } },
      { jsonrpc: '2.0', id: 21, result: { content: [{ type: 'text', text: 'found [REDACTED:EMAIL]' }] } },
    ]);
    // The response inside the batch answered the call: no error was added in its place.
    expect(r.text).not.toContain('-32005');
  });

  it('a stream whose last event ends in CR CR: that event still reaches the agent', async () => {
    const { client } = await connect(plain.operator);
    const r = await client.callTool({ name: 'cr_end', arguments: {} });
    expect(r.content).toEqual([{ type: 'text', text: 'ended by CR CR' }]);
  });
});
