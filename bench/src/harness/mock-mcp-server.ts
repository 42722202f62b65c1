import { App, us_listen_socket_close, us_socket_local_port, type HttpResponse, type us_listen_socket } from 'uWebSockets.js';
import { CHAT_ANSWER } from './mock-provider.js';

/**
 * The MCP benchmark's server: one Streamable HTTP endpoint (`/mcp`) on loopback that answers as fast as it can (uWS,
 * JSON answers, never SSE), so the harness measures the gateway's overhead, not the server's. `initialize` opens a
 * session (its id in `Mcp-Session-Id`), a notification is answered 202, and `tools/call` with the session gets a canned
 * text result as long as the mock provider's chat completion answer, so the two paths carry answers of one size.
 */
export interface MockMcpServer {
  url: string;
  port: number;
  close(): void;
}

const PROTOCOL = '2025-06-18';

/** Natural text without personal data, so the gateway's common path (nothing redacted, nothing blocked) is measured. */
const SENTENCES =
  'Found six accounts renewing within ninety days. Three have open escalations and falling usage; the other three are ' +
  'stable. The accounts most at risk are in the logistics and retail segments, where support tickets rose last month. ';

/** The tool's text: as many characters as the chat completion's whole answer. */
export const TOOL_TEXT = SENTENCES.repeat(Math.ceil(CHAT_ANSWER.length / SENTENCES.length)).slice(0, CHAT_ANSWER.length);
const RESULT_TAIL = `,"result":${JSON.stringify({ content: [{ type: 'text', text: TOOL_TEXT }], isError: false })}}`;

interface Message {
  id?: string | number;
  method?: string;
  params?: { protocolVersion?: string };
}

function json(res: HttpResponse, status: string, body: string, session = ''): void {
  res.cork(() => {
    res.writeStatus(status).writeHeader('content-type', 'application/json');
    if (session !== '') res.writeHeader('mcp-session-id', session);
    res.end(body);
  });
}

function rpcError(id: unknown, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code, message } });
}

export function startMockMcpServer(port = 0): Promise<MockMcpServer> {
  const sessions = new Set<string>();
  let opened = 0;
  const answer = (res: HttpResponse, session: string, raw: string) => {
    let msg: Message;
    try {
      msg = JSON.parse(raw) as Message;
    } catch {
      return json(res, '400 Bad Request', rpcError(null, -32700, 'not JSON'));
    }
    if (msg.id === undefined) return res.cork(() => res.writeStatus('202 Accepted').end());
    if (msg.method === 'initialize') {
      const id = `bench-session-${++opened}`;
      sessions.add(id);
      const result = { protocolVersion: msg.params?.protocolVersion ?? PROTOCOL, capabilities: { tools: {} }, serverInfo: { name: 'bench-mcp', version: '1.0.0' } };
      return json(res, '200 OK', JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }), id);
    }
    // As the transport says of a session the server does not know: 404, and the client initializes again.
    if (!sessions.has(session)) return json(res, '404 Not Found', rpcError(msg.id, -32001, 'session not found'));
    if (msg.method === 'tools/call') return json(res, '200 OK', `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)}${RESULT_TAIL}`);
    return json(res, '200 OK', rpcError(msg.id, -32601, `method not found: ${String(msg.method)}`));
  };
  return new Promise((resolve, reject) => {
    let socket: us_listen_socket | null = null;
    const app = App()
      .post('/mcp', (res, req) => {
        const session = req.getHeader('mcp-session-id');
        const chunks: Buffer[] = [];
        let aborted = false;
        res.onAborted(() => (aborted = true));
        res.onData((chunk, last) => {
          // uWS reuses the chunk's memory after this call: copied.
          chunks.push(Buffer.from(new Uint8Array(chunk)));
          if (last && !aborted) answer(res, session, Buffer.concat(chunks).toString('utf8'));
        });
      })
      .listen('127.0.0.1', port, (s) => {
        if (!s) return reject(new Error(`mock MCP server: cannot listen on ${port}`));
        socket = s;
        const p = us_socket_local_port(s as unknown as Parameters<typeof us_socket_local_port>[0]);
        resolve({ url: `http://127.0.0.1:${p}/mcp`, port: p, close: () => socket && us_listen_socket_close(socket) });
      });
    void app;
  });
}
