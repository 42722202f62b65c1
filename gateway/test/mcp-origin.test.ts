import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGatewayConfig } from '../src/index.js';
import { McpTestServer } from './helpers/mcp-test-server.js';
import { rawRequest, type RawAnswer } from './helpers/raw-http.js';
import { startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

// DNS rebinding: a web page whose name the attacker points at the gateway's address makes the browser send requests
// under the page's Host and Origin. The MCP transport says a server must validate Origin (403 when it is not allowed);
// a gateway listening on loopback also refuses a Host that is not loopback. Requests spoofed byte for byte, and the
// SDK's client (no Origin) still working.

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

let server: McpTestServer;
let t: TestGateway;
let token: string;
let port: number;

/** One request to /v1/mcp/crm with exactly these Host and Origin headers (null: none). */
function send(method: 'POST' | 'GET' | 'DELETE', host: string, origin: string | null, opts: { token?: string | null; session?: string } = {}): Promise<RawAnswer> {
  const bearer = opts.token === undefined ? token : opts.token;
  const body = method === 'POST' ? INIT : '';
  const head = [
    `${method} /v1/mcp/crm HTTP/1.1`,
    `Host: ${host}`,
    ...(origin === null ? [] : [`Origin: ${origin}`]),
    ...(bearer === null ? [] : [`Authorization: Bearer ${bearer}`]),
    'x-svc-agent-id: browser-victim',
    `Accept: ${method === 'GET' ? 'text/event-stream' : 'application/json, text/event-stream'}`,
    ...(opts.session ? [`mcp-session-id: ${opts.session}`, 'mcp-protocol-version: 2025-06-18'] : []),
    ...(body ? ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`] : []),
    'Connection: close',
  ];
  return rawRequest(port, head.join('\r\n') + '\r\n\r\n', body);
}

const initializes = () => server.received.filter((x) => (x.body as { method?: string } | undefined)?.method === 'initialize').length;

function expectForbidden(r: RawAnswer): void {
  expect(r.status).toBe(403);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(r.body) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
  expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  expect(body.error.message).toMatch(/^(Origin|Host) header: /);
}

beforeAll(async () => {
  server = await new McpTestServer({ json: true }).start();
  // HOST is the default, 127.0.0.1: a loopback bind.
  t = await startTestGateway({ mcpUpstreams: JSON.stringify({ crm: server.url }), mcpAllowedOrigins: 'https://app.example.com, http://localhost:5173' });
  token = (await t.tenant('origins')).operator;
  port = Number(new URL(t.url).port);
});
afterAll(async () => {
  await t?.close();
  await server?.close();
});

describe('Origin and Host on /v1/mcp/{name}', () => {
  it("another site's Host and Origin (a rebound page) is a 403 with a JSON-RPC error, for every method, and the server is not asked", async () => {
    const before = server.received.length;
    const evil = `evil.example.com:${port}`;
    expectForbidden(await send('POST', evil, `http://${evil}`));
    expectForbidden(await send('GET', evil, `http://${evil}`, { session: 'any' }));
    expectForbidden(await send('DELETE', evil, `http://${evil}`, { session: 'any' }));
    // The conformance suite's own shape: another site's Host and no Origin.
    expectForbidden(await send('POST', 'evil.example.com', null));
    // Refused before the credential is judged: no token, or a wrong one, is still a 403.
    expectForbidden(await send('POST', evil, `http://${evil}`, { token: null }));
    expectForbidden(await send('POST', evil, null, { token: 'adu_pat_not_a_token' }));
    expect(server.received.length).toBe(before);
  });

  it('an Origin of another site is a 403 even under a loopback Host; `null` too', async () => {
    const before = server.received.length;
    expectForbidden(await send('POST', `127.0.0.1:${port}`, 'https://evil.example.com'));
    expectForbidden(await send('POST', `localhost:${port}`, `http://localhost:${port + 1}`));
    expectForbidden(await send('POST', `127.0.0.1:${port}`, 'null'));
    expectForbidden(await send('POST', `127.0.0.1:${port}`, 'https://app.example.com.evil.example'));
    expect(server.received.length).toBe(before);
  });

  it('a loopback Host without an Origin, the same origin, or an allowed origin go through', async () => {
    const before = initializes();
    for (const [host, origin] of [
      [`127.0.0.1:${port}`, null],
      [`localhost:${port}`, null],
      [`[::1]:${port}`, null],
      ['127.0.0.1', null],
      [`localhost:${port}`, `http://localhost:${port}`],
      [`127.0.0.1:${port}`, 'https://app.example.com'],
      [`127.0.0.1:${port}`, 'http://localhost:5173'],
    ] as const) {
      const r = await send('POST', host, origin);
      expect(r.status, `${host} ${origin ?? '(no origin)'}: ${r.body}`).toBe(200);
      expect(r.headers['mcp-session-id']).toBeTruthy();
    }
    expect(initializes() - before).toBe(7);
  });

  it('past the origin check, the credential is judged as before: no token is a 401', async () => {
    const r = await send('POST', `127.0.0.1:${port}`, null, { token: null });
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body)).toMatchObject({ error: { code: 401, type: 'authentication_error' } });
  });

  it("the SDK's client (which sends no Origin) works as before", async () => {
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/v1/mcp/crm`), { requestInit: { headers: { authorization: `Bearer ${token}`, 'x-svc-agent-id': 'sdk' } } }));
    try {
      const r = await client.callTool({ name: 'send_email', arguments: { to: 'x', body: 'y' } });
      expect(r.content).toEqual([{ type: 'text', text: 'sent to x' }]);
    } finally {
      await client.close();
    }
  });
});

describe('MCP_ALLOWED_ORIGINS', () => {
  it('a value that is not a list of origins stops the start, naming the setting', () => {
    for (const bad of ['app.example.com', 'https://app.example.com/mcp', 'https://*.example.com', 'https://user:pw@app.example.com', 'null']) {
      expect(() => loadGatewayConfig({ MCP_ALLOWED_ORIGINS: bad }), bad).toThrow(/MCP_ALLOWED_ORIGINS/);
    }
    expect(() => loadGatewayConfig({ MCP_ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:5173/' })).not.toThrow();
  });
});
