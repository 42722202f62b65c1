import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport, type StreamableHTTPServerTransportOptions } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

/** A request's body read whole and parsed as JSON (undefined when empty or not JSON). */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  const raw = Buffer.concat(parts).toString('utf8');
  try {
    return raw ? JSON.parse(raw) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The test servers' session routing, as the SDK's examples do it: the transport of the session the request names, a new
 * one (with a new McpServer from `serve`) for an `initialize`, or null once the request was answered 400 (no session)
 * or 404 (an unknown one).
 */
export async function sessionTransport(
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  transports: Map<string, StreamableHTTPServerTransport>,
  serve: () => McpServer,
  options: Omit<StreamableHTTPServerTransportOptions, 'sessionIdGenerator' | 'onsessioninitialized'> = {},
): Promise<StreamableHTTPServerTransport | null> {
  const sid = req.headers['mcp-session-id'];
  const known = typeof sid === 'string' ? transports.get(sid) : undefined;
  if (known) return known;
  if (req.method !== 'POST' || !isInitializeRequest(body)) {
    res.writeHead(typeof sid === 'string' ? 404 : 400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'no valid session' } }));
    return null;
  }
  const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    ...options,
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void transports.set(id, t),
  });
  t.onclose = () => {
    if (t.sessionId) transports.delete(t.sessionId);
  };
  await serve().connect(t);
  return t;
}
