import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { readJsonBody, sessionTransport } from './mcp-session-router.js';

/**
 * A real MCP server built with the official SDK, on loopback, whose tools ask the client mid-call and answer with
 * what it said: `sample` (sampling/createMessage) and `elicit` (elicitation/create) ask on the tools/call's own SSE
 * answer; `sample_standalone` and `elicit_standalone` ask on the session's standalone stream (the client's GET), once
 * the client listens there (the SDK's server drops a request sent there before: it would never be answered). Stateful
 * sessions, resumable streams (an event store: each SSE answer starts with a priming event).
 */
export class McpAskingServer {
  url = '';
  #server: Server | null = null;
  readonly #transports = new Map<string, StreamableHTTPServerTransport>();
  /** Per session: resolves once its standalone stream is open (the server answered the client's GET). */
  readonly #listening = new Map<string, { opened: Promise<void>; open: () => void }>();

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

  #listener(sessionId: string): { opened: Promise<void>; open: () => void } {
    let l = this.#listening.get(sessionId);
    if (l === undefined) {
      let open = (): void => {};
      const opened = new Promise<void>((resolve) => (open = resolve));
      l = { opened, open };
      this.#listening.set(sessionId, l);
    }
    return l;
  }

  #mcpServer(): McpServer {
    const server = new McpServer({ name: 'asking', version: '1.0.0' });
    const sample = async (n: number, related: string | number | undefined) => {
      const r = await server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: `question ${n}` } }], maxTokens: 16 }, related === undefined ? undefined : { relatedRequestId: related });
      return { content: [{ type: 'text' as const, text: `sampled ${r.content.type === 'text' ? r.content.text : ''}` }] };
    };
    const elicit = async (n: number, related: string | number | undefined) => {
      const r = await server.server.elicitInput(
        { message: `name ${n}?`, requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
        related === undefined ? undefined : { relatedRequestId: related },
      );
      return { content: [{ type: 'text' as const, text: `${r.action} ${String(r.content?.['name'] ?? '')}` }] };
    };
    const input = { n: z.number() };
    server.registerTool('sample', { description: 'Asks the client for a completion', inputSchema: input }, ({ n }, extra) => sample(n, extra.requestId));
    server.registerTool('elicit', { description: 'Asks the user', inputSchema: input }, ({ n }, extra) => elicit(n, extra.requestId));
    server.registerTool('sample_standalone', { description: 'Asks on the standalone stream', inputSchema: input }, async ({ n }, extra) => {
      await this.#listener(extra.sessionId ?? '').opened;
      return sample(n, undefined);
    });
    server.registerTool('elicit_standalone', { description: 'Asks on the standalone stream', inputSchema: input }, async ({ n }, extra) => {
      await this.#listener(extra.sessionId ?? '').opened;
      return elicit(n, undefined);
    });
    return server;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJsonBody(req);
    const sid = req.headers['mcp-session-id'];
    const transport = await sessionTransport(req, res, body, this.#transports, () => this.#mcpServer(), { eventStore: new InMemoryEventStore(), retryInterval: 5_000 });
    if (transport === null) return;
    if (req.method === 'GET' && typeof sid === 'string') {
      // The transport registers the stream before it writes the answer's head: from then on it sends there.
      const head = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
      const listener = this.#listener(sid);
      res.writeHead = ((...args: unknown[]) => {
        const r = head(...args);
        if (res.statusCode === 200) listener.open();
        return r;
      }) as typeof res.writeHead;
    }
    await transport.handleRequest(req, res, body);
  }
}
