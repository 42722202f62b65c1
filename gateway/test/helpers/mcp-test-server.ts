import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { readJsonBody, sessionTransport } from './mcp-session-router.js';

/** A request the MCP server received over HTTP. */
export interface McpReceived {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * A real MCP server built with the official SDK, on loopback: stateful sessions (Streamable HTTP, SSE answers), a few
 * tools whose results carry personal data, a resource, and a tool (`crash`) whose call the server breaks off mid-answer.
 * Tests read what it received.
 */
export class McpTestServer {
  readonly received: McpReceived[] = [];
  /** The arguments each tool was called with, in order. */
  readonly calls: { tool: string; args: Record<string, unknown> }[] = [];
  url = '';
  #server: Server | null = null;
  readonly #transports = new Map<string, StreamableHTTPServerTransport>();

  /**
   * `json`: answer requests with a whole JSON body instead of an SSE stream (the transport's enableJsonResponse);
   * `extend`: registers a test's own tools and resources beside the usual ones.
   */
  constructor(private readonly options: { json?: boolean; extend?: (server: McpServer) => void } = {}) {}

  async start(): Promise<this> {
    this.#server = createServer((req, res) => void this.#handle(req, res));
    await new Promise<void>((r) => this.#server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/mcp`;
    return this;
  }

  async close(): Promise<void> {
    for (const t of this.#transports.values()) await t.close();
    this.#server?.closeAllConnections();
    await new Promise((r) => this.#server?.close(r));
  }

  /** The MCP server of one session: the tools and resource the tests use. */
  #mcpServer(): McpServer {
    const server = new McpServer({ name: 'crm', version: '1.0.0' });
    const record = (tool: string, args: Record<string, unknown>) => this.calls.push({ tool, args });
    server.registerTool('lookup_customer', { description: 'Finds a customer by e-mail', inputSchema: { email: z.string() } }, ({ email }) => {
      record('lookup_customer', { email });
      return {
        content: [{ type: 'text', text: `Customer ${email}: reach her at maria.souza@example.com or +55 11 91234-5678.` }],
        structuredContent: { email, backup: 'maria.souza@example.com' },
      };
    });
    server.registerTool('send_email', { description: 'Sends an e-mail', inputSchema: { to: z.string(), body: z.string() } }, ({ to, body }) => {
      record('send_email', { to, body });
      return { content: [{ type: 'text', text: `sent to ${to}` }] };
    });
    server.registerTool('drop_table', { description: 'Drops a table', inputSchema: { name: z.string() } }, ({ name }) => {
      record('drop_table', { name });
      return { content: [{ type: 'text', text: `dropped ${name}` }] };
    });
    server.registerTool('internal_report', { description: 'A report', inputSchema: {} }, () => {
      record('internal_report', {});
      return { content: [{ type: 'text', text: 'Connect to db.corp.internal:5432 with the admin account.' }] };
    });
    server.registerTool('crash', { description: 'Breaks off', inputSchema: {} }, () => {
      record('crash', {});
      return { content: [{ type: 'text', text: 'never seen' }] };
    });
    server.registerTool('count', { description: 'Counts, telling its progress', inputSchema: { to: z.number() } }, async ({ to }, extra) => {
      record('count', { to });
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= to; i++) {
        if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: to, message: `step ${i} for ana@example.com` } });
      }
      return { content: [{ type: 'text', text: `counted to ${to}` }] };
    });
    server.registerResource('notes', 'crm://notes', { mimeType: 'text/plain' }, (uri) => ({
      contents: [{ uri: uri.href, text: 'Call back joao.pereira@example.org tomorrow.' }],
    }));
    this.options.extend?.(server);
    return server;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJsonBody(req);
    this.received.push({ method: req.method ?? '', headers: req.headers, body });
    const msg = body as { method?: string; params?: { name?: string } } | undefined;
    if (msg?.method === 'tools/call' && msg.params?.name === 'crash') {
      // The server dies mid-answer: the SSE head and a comment, then the connection is cut.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': working\n\n', () => res.socket?.destroy());
      return;
    }
    const transport = await sessionTransport(req, res, body, this.#transports, () => this.#mcpServer(), { enableJsonResponse: this.options.json ?? false });
    if (transport === null) return;
    await transport.handleRequest(req, res, body);
  }
}
