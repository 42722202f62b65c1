import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * The JSON-RPC error codes the MCP gateway answers with (docs/mcp.md). The standard ones for what cannot be read;
 * its own, in the range JSON-RPC leaves to servers, for a call the gateway refused.
 */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** A browser page's request from an origin not allowed, or (loopback bind) under a Host that is not loopback (403). */
  forbidden: -32000,
  /** The server's session is not this tenant's and agent's, or was never opened through the gateway. */
  sessionNotFound: -32001,
  /** A policy refused the call (DENY): it never reached the server. */
  refused: -32003,
  /** A policy holds the call for an administrator (REQUIRE_APPROVAL, ESCALATE): retry it once resolved. */
  held: -32004,
  /** The server's answer could not be relayed (it broke off, or answered what the gateway cannot read). */
  upstreamFailed: -32005,
} as const;

export type Json = Record<string, unknown>;

/** A JSON-RPC error response. */
export function rpcError(id: RequestId | null, code: number, message: string, data?: Json): Json {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

/** What one message is: a request (method and id), a notification (method), or a response (id, result or error). */
export type MessageKind = 'request' | 'notification' | 'response' | 'invalid';

export function kindOf(m: unknown): MessageKind {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return 'invalid';
  const msg = m as Json;
  if (msg['jsonrpc'] !== '2.0') return 'invalid';
  const id = msg['id'];
  const hasId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  if (typeof msg['method'] === 'string') return hasId ? 'request' : 'id' in msg ? 'invalid' : 'notification';
  if (hasId && ('result' in msg || 'error' in msg)) return 'response';
  return 'invalid';
}

/**
 * Only the members JSON-RPC defines for a message of this kind: what the gateway forwards, so that nothing a sender
 * adds beside them reaches the other side unjudged.
 */
export function envelopeOf(msg: Json, kind: Exclude<MessageKind, 'invalid'>): Json {
  if (kind === 'response') return 'error' in msg ? { jsonrpc: '2.0', id: msg['id'], error: msg['error'] } : { jsonrpc: '2.0', id: msg['id'], result: msg['result'] };
  const out: Json = kind === 'request' ? { jsonrpc: '2.0', id: msg['id'], method: msg['method'] } : { jsonrpc: '2.0', method: msg['method'] };
  if (msg['params'] !== undefined) out['params'] = msg['params'];
  return out;
}

/** The key a request id is remembered under (a number and its string spelling are different ids). */
export function idKey(id: RequestId): string {
  return typeof id === 'number' ? `n${id}` : `s${id}`;
}

export type { JSONRPCMessage, RequestId };
