import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpAskingServer } from './helpers/mcp-asking-server.js';
import { startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

// A server that asks the client mid-call (sampling, elicitation): the request comes on the tools/call's SSE answer
// (or on the session's standalone stream, the client's GET), the client answers it on another HTTP request, and the
// server then finishes the call on the first stream. MCP's sessions live on the main thread, which serves every MCP
// request on the gateway's port, request threads or not (they serve the agents' port); every round trip must
// complete, many times over, on fresh sessions and several at once. A call not finished within CALL_TIMEOUT_MS fails
// the test.

const CALL_TIMEOUT_MS = 5_000;
const TOOLS = ['sample', 'elicit', 'sample_standalone', 'elicit_standalone'] as const;

function expected(tool: (typeof TOOLS)[number], n: number): string {
  return tool.startsWith('sample') ? `sampled answer to question ${n}` : `accept ana for name ${n}?`;
}

describe("MCP round trips the server starts, through a gateway with request threads on its agents' port", () => {
  let server: McpAskingServer;
  let t: TestGateway;
  let operator: string;
  const open: Client[] = [];

  beforeAll(async () => {
    server = await new McpAskingServer().start();
    t = await startTestGateway({ gatewayThreads: 2, agentPort: 0, ledgerWriter: 'thread', mcpUpstreams: JSON.stringify({ asking: { url: server.url } }) });
    operator = (await t.tenant('asks')).operator;
  });
  afterAll(async () => {
    for (const c of open.splice(0)) await c.close();
    await t?.close();
    await server?.close();
  });

  /** The SDK's client, able to sample and elicit: it answers with what it was asked. */
  async function connect(): Promise<Client> {
    const client = new Client({ name: 'agent', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, (req) => {
      const first = req.params.messages[0]?.content;
      const text = first !== undefined && 'text' in first ? String(first.text) : '';
      return { role: 'assistant', model: 'test-model', content: { type: 'text', text: `answer to ${text}` } };
    });
    client.setRequestHandler(ElicitRequestSchema, (req) => ({ action: 'accept', content: { name: `ana for ${req.params.message}` } }));
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/v1/mcp/asking`), {
      requestInit: { headers: { authorization: `Bearer ${operator}`, 'x-svc-agent-id': 'asker' } },
    });
    await client.connect(transport);
    open.push(client);
    return client;
  }

  async function roundTrips(client: Client, rounds: number, tag: number, tools: readonly (typeof TOOLS)[number][] = TOOLS): Promise<void> {
    for (let i = 0; i < rounds; i++) {
      const n = tag * 1000 + i;
      for (const tool of tools) {
        const r = await client.callTool({ name: tool, arguments: { n } }, undefined, { timeout: CALL_TIMEOUT_MS });
        expect(r.content).toEqual([{ type: 'text', text: expected(tool, n) }]);
      }
    }
  }

  it('completes every sampling and elicitation round trip, one after another on one session', async () => {
    await roundTrips(await connect(), 50, 0);
  });

  it('completes them on fresh sessions (new connections each time)', async () => {
    for (let i = 0; i < 25; i++) {
      const client = await connect();
      await roundTrips(client, 1, 100 + i);
      await client.close();
    }
  });

  it('completes them with several sessions asking at once', async () => {
    const clients = await Promise.all(Array.from({ length: 6 }, () => connect()));
    await Promise.all(clients.map((c, i) => roundTrips(c, 12, 200 + i)));
  });
});
