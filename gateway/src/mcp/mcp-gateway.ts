import { Egress, type Logger } from '@aduana/shared';
import type { Dispatcher } from 'undici';
import type { AgentRegistry } from '../agents/agent-registry.js';
import { GatewayError } from '../errors.js';
import { parseJsonBody } from '../http/json-body.js';
import { endRaw, RawChunkWriter, writeRawHead, writeRawWhole } from '../http/raw-response.js';
import type { RequestContext } from '../http/request-context.js';
import { assertAgent } from '../identity/auth/principal.js';
import { isValidLedgerName } from '../ledger/index.js';
import type { TenantRuntimes } from '../policy/runtime/tenant-runtime.js';
import { encodeSse, SseReader } from '../proxy/answer/sse-reader.js';
import { idKey, kindOf, RPC, rpcError, type Json } from './jsonrpc.js';
import type { ToolCallOutcome, ToolCallRecord, ToolCallRecorder } from './mcp-record.js';
import { governResult, redactNotification } from './mcp-results.js';
import type { McpSessions } from './mcp-sessions.js';
import type { McpUpstream } from './mcp-upstreams.js';
import { InvalidParams, type McpCaller, type ToolCallJudge } from './tool-call-judge.js';

export interface McpGatewayDeps {
  upstreams: ReadonlyMap<string, McpUpstream>;
  runtimes: TenantRuntimes;
  agents: AgentRegistry;
  judge: ToolCallJudge;
  /** The tools/calls' ledger entries (and request-log samples): the judge's recorder. */
  recorder: ToolCallRecorder;
  sessions: McpSessions;
  logger: Logger;
  readBody(ctx: RequestContext, maxBytes: number): Promise<Buffer>;
  complete(ctx: RequestContext, status: number): void;
  /** Largest message from the agent (413 past it). */
  maxBodyBytes: number;
  /** Largest JSON answer, and largest single stream event, from a server (the agent gets an error past it). */
  maxAnswerBytes: number;
  /** Wait for a server's answer head, and for each chunk of its answer; a stream idle longer is ended. */
  timeoutMs: number;
  streamIdleMs: number;
  /** Straight to the servers, or through the egress proxy (HTTPS_PROXY, NO_PROXY): decided at start (default: straight). */
  egress?: Egress;
}

/** The request headers of the Streamable HTTP transport, relayed both ways (the route declares them). */
export const MCP_REQUEST_HEADERS: readonly string[] = Object.freeze(['mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'accept']);
const ANSWER_HEADERS: readonly string[] = ['content-type', 'mcp-session-id', 'mcp-protocol-version', 'cache-control'];
const SSE = /^text\/event-stream\b/i;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

/** A request the agent sent, waiting for the server's response: its method, and its record when it is a tools/call. */
interface Pending {
  method: string;
  record: ToolCallRecord | null;
}

/**
 * The sidecar's MCP gateway: `/v1/mcp/{name}` relays the Streamable HTTP transport to the server MCP_UPSTREAMS names
 * (POST with a JSON or SSE answer, GET for the server's stream, DELETE to end a session; the session, protocol
 * version and resumption headers both ways), with the sidecar's credentials for that server and never the agent's PAT
 * or id. It owns only the transport and the mapping of messages to actions: a `tools/call` is judged by ToolCallJudge
 * before it is sent, its result governed on the way back (governResult) and the call chained in the ledger; `tools/list`
 * hides denied tools; every other message passes unjudged.
 */
export class McpGateway {
  readonly #pools = new Map<string, Dispatcher>();

  constructor(private readonly d: McpGatewayDeps) {
    for (const u of d.upstreams.values()) {
      if (!this.#pools.has(u.url.origin)) this.#pools.set(u.url.origin, (d.egress ?? Egress.direct).pool(u.url.origin, { connections: 64, keepAliveTimeout: 30_000 }));
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((p) => p.close()));
  }

  async handle(ctx: RequestContext, method: 'POST' | 'GET' | 'DELETE'): Promise<void> {
    const upstream = this.d.upstreams.get(ctx.params[0] ?? '');
    if (!upstream) throw new GatewayError('route_not_found', 'no MCP server of that name is configured (MCP_UPSTREAMS)');
    const caller = this.#caller(ctx, upstream);
    if (caller.sessionId !== '') {
      const owner = this.d.sessions.owner(upstream.name, caller.sessionId);
      if (!owner || owner.tenantId !== caller.tenantId) {
        this.#whole(ctx, 404, rpcError(null, RPC.sessionNotFound, 'session not found: initialize a new one'));
        return;
      }
    }
    if (method !== 'POST') return this.#forward(ctx, upstream, caller, method, null, new Map(), false);
    const raw = await this.d.readBody(ctx, this.d.maxBodyBytes);
    let body: unknown;
    try {
      body = parseJsonBody(raw);
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      this.#whole(ctx, 400, rpcError(null, RPC.parseError, `not JSON: ${err.message}`));
      return;
    }
    if (Array.isArray(body)) {
      this.#whole(ctx, 400, rpcError(null, RPC.invalidRequest, 'JSON-RPC batches are not proxied (the MCP transport since 2025-06-18 sends one message per request)'));
      return;
    }
    const kind = kindOf(body);
    if (kind === 'invalid') {
      this.#whole(ctx, 400, rpcError(null, RPC.invalidRequest, 'not a JSON-RPC 2.0 request, notification or response'));
      return;
    }
    const msg = body as Json;
    const pending = new Map<string, Pending>();
    if (kind === 'request') {
      const id = msg['id'] as string | number;
      const m = msg['method'] as string;
      let record: ToolCallRecord | null = null;
      if (m === 'tools/call') {
        try {
          const judged = await this.d.judge.judge(caller, msg);
          if (judged.refusal !== null) {
            this.#whole(ctx, 200, judged.refusal);
            return;
          }
          record = judged.record;
        } catch (err) {
          if (!(err instanceof InvalidParams)) throw err;
          this.#whole(ctx, 200, rpcError(err.id, RPC.invalidParams, err.message));
          return;
        }
      }
      pending.set(idKey(id), { method: m, record });
    }
    // What was judged is what is sent: the parsed (and maybe redacted) message, not the client's bytes.
    await this.#forward(ctx, upstream, caller, 'POST', Buffer.from(JSON.stringify(msg)), pending, kind === 'request' && msg['method'] === 'initialize');
  }

  #caller(ctx: RequestContext, upstream: McpUpstream): McpCaller {
    const p = ctx.auth;
    if (ctx.agentId === '') throw new GatewayError('missing_agent_id');
    if (!isValidLedgerName(ctx.agentId)) throw new GatewayError('invalid_request', 'x-svc-agent-id: no control characters, at most 256 bytes');
    assertAgent(p, ctx.agentId);
    const agent = this.d.agents.admit(p.tenantId, ctx.agentId, Date.now());
    const sessionId = ctx.header('mcp-session-id');
    if (sessionId.length > 256) throw new GatewayError('invalid_request', 'mcp-session-id: at most 256 characters');
    return {
      tenantId: p.tenantId,
      agentId: ctx.agentId,
      agent,
      set: this.d.runtimes.agentSet(p.tenantId, agent.policyPack),
      server: upstream.name,
      sessionId,
      traceId: ctx.trace.traceId,
    };
  }

  async #forward(ctx: RequestContext, upstream: McpUpstream, caller: McpCaller, method: 'POST' | 'GET' | 'DELETE', body: Buffer | null, pending: Map<string, Pending>, opens: boolean): Promise<void> {
    const headers: Record<string, string> = { ...upstream.headers };
    for (const name of MCP_REQUEST_HEADERS) {
      const v = ctx.header(name);
      if (v !== '') headers[name] = v;
    }
    if (body !== null) headers['content-type'] = 'application/json';
    headers['accept'] ??= method === 'GET' ? 'text/event-stream' : 'application/json, text/event-stream';
    const abort = new AbortController();
    const onAbort = ctx.onAbort;
    ctx.onAbort = () => {
      onAbort?.();
      abort.abort();
    };
    let res: Dispatcher.ResponseData;
    try {
      res = await this.#pools.get(upstream.url.origin)!.request({
        origin: upstream.url.origin,
        method,
        path: upstream.url.pathname + upstream.url.search,
        headers,
        body,
        signal: abort.signal,
        headersTimeout: this.d.timeoutMs,
        bodyTimeout: this.d.streamIdleMs,
      });
    } catch (err) {
      if (ctx.aborted) return this.#settle(pending, 'client_aborted');
      this.d.logger.warn({ err, server: upstream.name }, 'MCP server unreachable');
      const key = pending.keys().next().value;
      this.#settle(pending, 'upstream_error');
      const id = key === undefined ? null : idOf(key);
      this.#whole(ctx, 502, rpcError(id, RPC.upstreamFailed, `MCP server "${upstream.name}" did not answer`));
      return;
    }
    const answer: Record<string, string> = {};
    for (const name of ANSWER_HEADERS) {
      const v = res.headers[name];
      if (typeof v === 'string') answer[name] = v;
    }
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    const sid = answer['mcp-session-id'];
    if (ok && opens && sid) this.d.sessions.bind(upstream.name, sid, { tenantId: caller.tenantId, agentId: caller.agentId });
    if (ok && method === 'DELETE' && caller.sessionId !== '') this.d.sessions.forget(upstream.name, caller.sessionId);
    const type = answer['content-type'] ?? '';
    if (ok && SSE.test(type)) return this.#relayStream(ctx, res, answer, caller, pending);
    let raw: Buffer;
    try {
      raw = await readCapped(res.body, this.d.maxAnswerBytes);
    } catch {
      this.#settle(pending, 'upstream_error');
      if (!ctx.aborted) this.#whole(ctx, 502, rpcError(null, RPC.upstreamFailed, `MCP server "${upstream.name}" answered more than the gateway accepts, or broke off`));
      return;
    }
    if (ok && JSON_TYPE.test(type) && raw.length > 0) {
      const msg = parseOrUndefined(raw.toString('utf8'));
      if (kindOf(msg) === 'response') {
        const governed = this.#govern(caller, msg as Json, pending, false);
        if (governed.changed) raw = Buffer.from(JSON.stringify(governed.message));
      } else if (pending.size > 0) {
        this.#settle(pending, 'upstream_error');
        this.#whole(ctx, 502, rpcError(null, RPC.upstreamFailed, `MCP server "${upstream.name}" answered something that is not a JSON-RPC response`));
        return;
      }
    }
    // A request the answer did not answer (an error status, another message) failed at the server.
    this.#settle(pending, 'upstream_error');
    if (!ctx.aborted && !ctx.responded) writeRawWhole(ctx, res.statusCode, answer, raw);
    this.d.complete(ctx, res.statusCode);
  }

  /** An SSE answer, event by event: responses to what the agent asked are governed; the rest passes as sent. */
  async #relayStream(ctx: RequestContext, res: Dispatcher.ResponseData, headers: Record<string, string>, caller: McpCaller, pending: Map<string, Pending>): Promise<void> {
    writeRawHead(ctx, res.statusCode, { ...headers, 'cache-control': 'no-cache' });
    const out = new RawChunkWriter(ctx);
    const onAbort = ctx.onAbort;
    ctx.onAbort = () => {
      onAbort?.();
      out.release();
    };
    // One event that never ends must not hold the gateway's memory.
    const reader = new SseReader({ maxPending: this.d.maxAnswerBytes });
    let broke = false;
    try {
      for await (const chunk of res.body) {
        if (ctx.aborted) break;
        const events = reader.push(chunk as Buffer);
        let text = '';
        for (const ev of events) {
          const msg = parseOrUndefined(ev.data);
          const kind = kindOf(msg);
          if (kind === 'response') {
            const governed = this.#govern(caller, msg as Json, pending, true);
            text += encodeSse(governed.changed ? { data: JSON.stringify(governed.message), other: ev.other } : ev);
          } else if (kind === 'notification' && redactNotification(caller, msg as Json)) text += encodeSse({ data: JSON.stringify(msg), other: ev.other });
          else text += encodeSse(ev);
        }
        await out.write(text);
      }
    } catch (err) {
      broke = !ctx.aborted;
      if (broke) this.d.logger.warn({ err, server: caller.server }, 'MCP server stream broke off');
    } finally {
      if (ctx.aborted) {
        res.body.destroy();
        this.#settle(pending, 'client_aborted');
      } else {
        // A request the stream never answered gets an error in its place, so the agent's client is not left waiting.
        let tail = '';
        for (const [key, p] of pending) tail += encodeSse({ data: JSON.stringify(rpcError(idOf(key), RPC.upstreamFailed, `MCP server "${caller.server}" ${broke ? 'broke off' : 'ended the stream'} before answering ${p.method}`)), other: [] });
        this.#settle(pending, 'upstream_error');
        await out.write(tail);
      }
      endRaw(ctx);
      this.d.complete(ctx, res.statusCode);
    }
  }

  /**
   * One response from the server (`streamed`: an event of an SSE answer): governed when it answers a request the agent
   * sent, its tools/call recorded.
   */
  #govern(caller: McpCaller, msg: Json, pending: Map<string, Pending>, streamed: boolean): { message: Json; changed: boolean } {
    const key = idKey(msg['id'] as string | number);
    const p = pending.get(key);
    if (p === undefined) return governResult(caller, null, msg, null);
    pending.delete(key);
    const governed = governResult(caller, p.method, msg, p.record);
    const r = p.record;
    if (r !== null) {
      const result = msg['result'] as Json | undefined;
      // A drawn call keeps the result as the agent gets it (redacted in place); not a result an output policy replaced,
      // nor a server's error (governResult reads only results: an error's text never passed output redaction).
      if (r.sample !== null && governed.blockedBy === null && result !== null && typeof result === 'object') {
        r.sample.result = result;
        r.sample.streamed = streamed;
      }
      const outcome: ToolCallOutcome = governed.blockedBy !== null ? 'blocked' : msg['error'] !== undefined || result?.['isError'] === true ? 'tool_error' : 'completed';
      if (governed.blockedBy !== null) this.d.recorder.record(r, outcome, 'DENY', governed.blockedBy);
      else this.d.recorder.record(r, outcome);
    }
    return governed;
  }

  /** The tools/calls still waiting get their record with this outcome (each once). */
  #settle(pending: Map<string, Pending>, outcome: ToolCallOutcome): void {
    for (const p of pending.values()) if (p.record !== null) this.d.recorder.record(p.record, outcome);
    pending.clear();
  }

  #whole(ctx: RequestContext, status: number, body: Json): void {
    writeRawWhole(ctx, status, { 'content-type': 'application/json' }, Buffer.from(JSON.stringify(body)));
    this.d.complete(ctx, status);
  }
}

/** A message's JSON, or undefined for what is not JSON (relayed as it came, never judged as a response). */
function parseOrUndefined(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function idOf(key: string): string | number {
  return key.startsWith('n') ? Number(key.slice(1)) : key.slice(1);
}

async function readCapped(body: AsyncIterable<unknown> & { destroy(err?: Error): void }, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > max) {
      body.destroy(new Error('answer too large'));
      throw new Error('answer too large');
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}
