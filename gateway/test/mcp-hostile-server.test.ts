import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poll } from '../../shared/test/helpers/poll.js';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

// An MCP server that misbehaves, behind the gateway: answers larger than MCP_ANSWER_LIMIT, a stream event that never
// ends, a stream that never ends. The gateway answers the agent with an error, holds bounded memory, and stays up.

const LIMIT = 64 * 1024;
let t: TestGateway;
let hostile: Server;
let tok: Awaited<ReturnType<TestGateway['tenant']>>;
/** Streams the server is still writing (closed when the gateway lets go of them). */
const open = new Set<ServerResponse>();

function answerRpc(res: ServerResponse, id: unknown, result: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
}

beforeAll(async () => {
  hostile = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const msg = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as { id?: unknown; method?: string; params?: { name?: string } };
      if (msg.method === 'initialize') return answerRpc(res, msg.id, { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '0' } }, { 'mcp-session-id': 'hostile-1' });
      const tool = msg.params?.name;
      if (tool === 'big') return answerRpc(res, msg.id, { content: [{ type: 'text', text: 'x'.repeat(LIMIT * 4) }] });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      open.add(res);
      res.on('close', () => open.delete(res));
      if (tool === 'endless_event') {
        // One event whose data line never ends.
        res.write('data: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"');
        const timer = setInterval(() => res.write('y'.repeat(16 * 1024)), 1);
        res.on('close', () => clearInterval(timer));
        return;
      }
      // A stream that never ends: a comment now and then, no answer.
      const timer = setInterval(() => res.write(': still here\n\n'), 5);
      res.on('close', () => clearInterval(timer));
    });
  });
  await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/mcp`;
  t = await startTestGateway({ mcpUpstreams: JSON.stringify({ hostile: url }), mcpAnswerLimit: LIMIT });
  tok = await t.tenant('hostile');
  const init = await rpc({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } }, false);
  expect(init.status).toBe(200);
});
afterAll(async () => {
  await t?.close();
  hostile?.closeAllConnections();
  await new Promise((r) => hostile?.close(r));
});

function rpc(body: unknown, session = true, signal?: AbortSignal) {
  const headers: Record<string, string> = { 'x-svc-agent-id': 'agent', accept: 'application/json, text/event-stream' };
  if (session) headers['mcp-session-id'] = 'hostile-1';
  return call(t.url, 'POST', '/v1/mcp/hostile', { token: tok.operator, headers, body, ...(signal ? { signal } : {}) });
}

const toolCall = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

describe('a hostile MCP server behind the gateway', () => {
  it('an answer larger than MCP_ANSWER_LIMIT is a 502 with a JSON-RPC error, never relayed', async () => {
    const r = await rpc(toolCall(1, 'big'));
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe(-32005);
    expect(r.text.length).toBeLessThan(1024);
  });

  it('a stream event that never ends is cut past the limit: the agent gets an error for its call, the gateway stays up', async () => {
    const r = await rpc(toolCall(2, 'endless_event'));
    expect(r.status).toBe(200);
    expect(r.text.length).toBeLessThan(LIMIT);
    expect(r.text).toContain('"code":-32005');
    expect(r.text).toContain('"id":2');
    await poll(() => open.size === 0, { what: 'the server stream released' });
    const ok = await call(t.url, 'GET', '/health', {});
    expect(ok.status).toBe(200);
  });

  it('a stream that never answers is released when the agent leaves', async () => {
    const ac = new AbortController();
    const pending = rpc(toolCall(3, 'forever'), true, ac.signal).catch((e: unknown) => e);
    await poll(() => open.size === 1, { what: 'the server stream open' });
    ac.abort();
    await pending;
    await poll(() => open.size === 0, { what: 'the server stream released after the agent left' });
    const entries = await poll(
      async () => {
        const r = await call(t.url, 'GET', '/v1/events?limit=10&order=desc', { token: tok.admin });
        return (r.body.events as { event_type: string; payload: Record<string, unknown> }[]).find((e) => e.event_type === 'mcp.tools.call' && e.payload['tool'] === 'forever');
      },
      { what: 'the abandoned call recorded' },
    );
    expect(entries?.payload['outcome']).toBe('client_aborted');
  });
});
