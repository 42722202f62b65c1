import { RPC, rpcError, type Json, type MessageKind } from './jsonrpc.js';

/**
 * The messages a client may send an MCP server, by method (the protocol's ClientRequest and ClientNotification, as of
 * 2025-11-25): anything else, a near spelling (`tools/call `) included, is refused before it reaches a server, so no
 * request can go past the judge under a name it does not recognise. The tasks methods are left out on purpose: a
 * task-augmented `tools/call` would bring its result back through `tasks/result`, around result governance.
 */
export const CLIENT_REQUESTS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'completion/complete',
  'logging/setLevel',
  'prompts/get',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'tools/call',
  'tools/list',
]);

export const CLIENT_NOTIFICATIONS: ReadonlySet<string> = new Set(['notifications/initialized', 'notifications/cancelled', 'notifications/progress', 'notifications/roots/list_changed']);

/** The kinds of request a server may send its client that MCP_UPSTREAMS' `refuse_server_requests` can refuse, by method prefix. */
export const SERVER_REQUEST_KINDS: Readonly<Record<string, string>> = Object.freeze({ sampling: 'sampling/', elicitation: 'elicitation/', roots: 'roots/' });

/**
 * Null when a message from the client may go on; else the HTTP status and JSON-RPC error that answer it. A request
 * method sent as a notification is an invalid request, and a notification refused is answered with an HTTP error and an
 * error with no id, as the Streamable HTTP transport has a server refuse a notification; an unknown request's method is
 * not found.
 */
export function methodRefusal(kind: MessageKind, msg: Json): { status: number; body: Json } | null {
  if (kind !== 'request' && kind !== 'notification') return null;
  const method = msg['method'] as string;
  if (kind === 'request') {
    if (CLIENT_REQUESTS.has(method)) return null;
    return { status: 200, body: rpcError(msg['id'] as string | number, RPC.methodNotFound, `method not found: ${quoted(method)} is not a request of the MCP protocol the gateway relays`) };
  }
  if (CLIENT_NOTIFICATIONS.has(method)) return null;
  if (CLIENT_REQUESTS.has(method)) return { status: 400, body: rpcError(null, RPC.invalidRequest, `${quoted(method)} is a request: send it with an id`) };
  return { status: 400, body: rpcError(null, RPC.methodNotFound, `method not found: ${quoted(method)} is not a notification of the MCP protocol the gateway relays`) };
}

/** The sender's own text, quoted and bounded. */
function quoted(method: string): string {
  return JSON.stringify(method.slice(0, 64));
}
