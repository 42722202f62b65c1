import { Egress, type Logger } from '@aduana/shared';
import type { Dispatcher } from 'undici';
import type { AgentRegistry } from '../agents/agent-registry.js';
import { GatewayError } from '../errors.js';
import { parseJsonBody } from '../http/json-body.js';
import { endRaw, RawChunkWriter, writeRawHead, writeRawWhole } from '../http/raw-response.js';
import type { RequestContext } from '../http/request-context.js';
import { CallerAdmission } from '../governance/caller-admission.js';
import type { TenantRuntimes } from '../policy/runtime/tenant-runtime.js';
import { encodeSse, SseReader, sseEvents } from '../proxy/answer/sse-reader.js';
import { envelopeOf, idKey, kindOf, RPC, rpcError, type Json, type RequestId } from './jsonrpc.js';
import { methodRefusal } from './mcp-methods.js';
import type { ToolCallOutcome, ToolCallRecord, ToolCallRecorder } from './mcp-record.js';
import { governMember, governResult } from './mcp-results.js';
import type { McpOriginCheck } from './mcp-origin-check.js';
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
  /** Origin (and, on a loopback bind, Host) validation: the transport's defence against DNS rebinding. */
  origins: McpOriginCheck;
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
/** The headers the routes read: the transport's, and those the origin check reads (never relayed to a server). */
export const MCP_ROUTE_HEADERS: readonly string[] = Object.freeze([...MCP_REQUEST_HEADERS, 'origin', 'host']);
const ANSWER_HEADERS: readonly string[] = ['content-type', 'mcp-session-id', 'mcp-protocol-version', 'cache-control'];
const SSE = /^text\/event-stream\b/i;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;
/** What #fromServer answers for a message to relay as it came. */
const KEEP = Symbol('keep');

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
 * hides denied tools. Only the protocol's own methods are relayed (mcp-methods.ts), and of a message only its JSON-RPC
 * members; everything the server sends (errors, notifications, its own requests, batches, text) is redacted and judged
 * by the output filters on its way to the agent (#fromServer).
 */
export class McpGateway {
  readonly #pools = new Map<string, Dispatcher>();
  readonly #admission: CallerAdmission;

  constructor(private readonly d: McpGatewayDeps) {
    this.#admission = new CallerAdmission(d.agents, d.runtimes.sets);
    for (const u of d.upstreams.values()) {
      if (!this.#pools.has(u.url.origin)) this.#pools.set(u.url.origin, (d.egress ?? Egress.direct).pool(u.url.origin, { connections: 64, keepAliveTimeout: 30_000 }));
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((p) => p.close()));
  }

  async handle(ctx: RequestContext, method: 'POST' | 'GET' | 'DELETE'): Promise<void> {
    // First, before a credential's refusal: a page on a foreign origin is refused whatever it holds.
    const refused = this.d.origins.refusal(ctx.header('origin'), ctx.header('host'));
    if (refused !== null) {
      this.#whole(ctx, 403, rpcError(null, RPC.forbidden, refused));
      return;
    }
    // The route's guard left these here for the origin check to come first (the route answers its refusals).
    if (ctx.refusal !== null) throw ctx.refusal.thrown;
    if (ctx.admission !== null) await ctx.admission;
    const upstream = this.d.upstreams.get(ctx.params[0] ?? '');
    if (!upstream) throw new GatewayError('route_not_found', 'no MCP server of that name is configured (MCP_UPSTREAMS)');
    const caller = this.#caller(ctx, upstream);
    // Another tenant's or another agent's session is answered as an unknown one: its existence is not revealed.
    if (caller.sessionId !== '' && !this.d.sessions.owns(caller.tenantId, caller.agentId, upstream.name, caller.sessionId)) {
      this.#whole(ctx, 404, rpcError(null, RPC.sessionNotFound, 'session not found: initialize a new one'));
      return;
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
    const wrongMethod = methodRefusal(kind, msg);
    if (wrongMethod !== null) {
      this.#whole(ctx, wrongMethod.status, wrongMethod.body);
      return;
    }
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
    await this.#forward(ctx, upstream, caller, 'POST', Buffer.from(JSON.stringify(envelopeOf(msg, kind))), pending, kind === 'request' && msg['method'] === 'initialize');
  }

  #caller(ctx: RequestContext, upstream: McpUpstream): McpCaller {
    const admitted = this.#admission.admit(ctx.auth, ctx.agentId, Date.now());
    const sessionId = ctx.header('mcp-session-id');
    if (sessionId.length > 256) throw new GatewayError('invalid_request', 'mcp-session-id: at most 256 characters');
    // The policies whose scope this agent's messages through this server match (a tools/call's tool narrows it further).
    const set = admitted.set.narrow('mcp', admitted.agentId, undefined, upstream.name);
    return { ...admitted, set, server: upstream.name, sessionId, traceId: ctx.trace.traceId };
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
    // Ended by the agent, or no longer known to the server (404, the transport says): its room in the share is freed.
    if (caller.sessionId !== '' && ((ok && method === 'DELETE') || res.statusCode === 404)) this.d.sessions.forget(caller.tenantId, upstream.name, caller.sessionId);
    const type = answer['content-type'] ?? '';
    if (ok && SSE.test(type)) return this.#relayStream(ctx, res, answer, upstream, caller, pending);
    let raw: Buffer;
    try {
      raw = await readCapped(res.body, this.d.maxAnswerBytes);
    } catch {
      this.#settle(pending, 'upstream_error');
      if (!ctx.aborted) this.#whole(ctx, 502, rpcError(null, RPC.upstreamFailed, `MCP server "${upstream.name}" answered more than the gateway accepts, or broke off`));
      return;
    }
    if (raw.length > 0) {
      // Whatever the status and type: an error page reaches the agent (and its model) as surely as a result.
      const text = raw.toString('utf8');
      const msg = JSON_TYPE.test(type) ? parseOrUndefined(text) : undefined;
      if (ok && pending.size > 0 && kindOf(msg) !== 'response') {
        this.#settle(pending, 'upstream_error');
        this.#whole(ctx, 502, rpcError(null, RPC.upstreamFailed, `MCP server "${upstream.name}" answered something that is not a JSON-RPC response`));
        return;
      }
      const replies: Json[] = [];
      // A response under an error status answers nothing the gateway waits for: governed, never recorded as the call's.
      const out = msg === undefined ? this.#textFromServer(caller, text) : this.#fromServer(caller, upstream, msg, ok ? pending : new Map(), false, replies);
      if (out === null) {
        raw = Buffer.from(JSON.stringify(rpcError(null, RPC.refused, `MCP server "${upstream.name}" answered what the gateway's policies block`)));
        answer['content-type'] = 'application/json';
      } else if (out !== KEEP) raw = Buffer.from(msg === undefined ? (out as string) : JSON.stringify(out));
      for (const reply of replies) await this.#answerServer(upstream, caller, ctx, reply);
    }
    // A request the answer did not answer (an error status, another message) failed at the server.
    this.#settle(pending, 'upstream_error');
    if (!ctx.aborted && !ctx.responded) writeRawWhole(ctx, res.statusCode, answer, raw);
    this.d.complete(ctx, res.statusCode);
  }

  /** An SSE answer, event by event, each message governed (#fromServer); the stream's last event too, however it ends. */
  async #relayStream(ctx: RequestContext, res: Dispatcher.ResponseData, headers: Record<string, string>, upstream: McpUpstream, caller: McpCaller, pending: Map<string, Pending>): Promise<void> {
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
    const replies: Json[] = [];
    try {
      for await (const events of sseEvents(res.body, reader)) {
        if (ctx.aborted) break;
        let text = '';
        for (const ev of events) {
          // A comment, a retry, an id alone: no message.
          if (ev.data === '') {
            text += encodeSse(ev);
            continue;
          }
          const msg = parseOrUndefined(ev.data);
          const r = msg === undefined ? this.#textFromServer(caller, ev.data) : this.#fromServer(caller, upstream, msg, pending, true, replies);
          if (r === KEEP) text += encodeSse(ev);
          else if (r !== null) text += encodeSse({ data: msg === undefined ? (r as string) : JSON.stringify(r), other: ev.other });
        }
        await out.write(text);
        for (const reply of replies.splice(0)) await this.#answerServer(upstream, caller, ctx, reply);
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
   * One JSON value the server sent (a whole JSON answer, or one stream event's data) on its way to the agent: a batch
   * message by message; a response governed as a result (#govern); a notification, or a request of the server's own
   * (sampling, elicitation, roots), redacted and judged by the output filters like a result; anything else (an error
   * with no id, JSON that is not JSON-RPC) judged as text. Returns KEEP (relay it as it came), what to relay in its
   * place, or null: relay nothing (blocked, or a server request refused here; its JSON-RPC error is put on `replies`
   * for the gateway to answer the server with, so the request never reaches the agent).
   */
  #fromServer(caller: McpCaller, upstream: McpUpstream, value: unknown, pending: Map<string, Pending>, streamed: boolean, replies: Json[]): unknown {
    if (!Array.isArray(value)) return this.#oneFromServer(caller, upstream, value, pending, streamed, replies);
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const r = this.#oneFromServer(caller, upstream, value[i], pending, streamed, replies);
      if (r === KEEP && out === null) continue;
      out ??= value.slice(0, i);
      if (r === KEEP) out.push(value[i]);
      else if (r !== null) out.push(r);
    }
    if (out === null) return KEEP;
    return out.length === 0 ? null : out;
  }

  #oneFromServer(caller: McpCaller, upstream: McpUpstream, value: unknown, pending: Map<string, Pending>, streamed: boolean, replies: Json[]): unknown {
    const kind = kindOf(value);
    if (kind === 'response') {
      const governed = this.#govern(caller, value as Json, pending, streamed);
      return governed.changed ? governed.message : KEEP;
    }
    if (kind === 'request' || kind === 'notification') {
      const msg = value as Json;
      const method = msg['method'] as string;
      const id = msg['id'] as RequestId;
      if (kind === 'request' && upstream.refusedServerRequests.some((prefix) => method.startsWith(prefix))) {
        replies.push(rpcError(id, RPC.refused, 'refused by the gateway in front of the client (refuse_server_requests)'));
        return null;
      }
      const governed = governMember(caller, msg, 'params');
      if (governed.blockedBy !== null) {
        this.d.logger.info({ server: upstream.name, policy: governed.blockedBy, request: kind === 'request' }, 'MCP server message blocked by an output policy');
        if (kind === 'request') replies.push(rpcError(id, RPC.refused, "refused by the gateway's policies in front of the client"));
        return null;
      }
      return governed.changed ? msg : KEEP;
    }
    const holder: Json = { value };
    const governed = governMember(caller, holder, 'value');
    return governed.blockedBy !== null ? null : governed.changed ? holder['value'] : KEEP;
  }

  /** Text from the server that is not JSON (an error page, an event's data): redacted and judged, as KEEP, new text or null. */
  #textFromServer(caller: McpCaller, text: string): unknown {
    const holder: Json = { text };
    const governed = governMember(caller, holder, 'text');
    return governed.blockedBy !== null ? null : governed.changed ? holder['text'] : KEEP;
  }

  /**
   * The gateway's own answer to a request the server sent on a stream and the gateway refused: POSTed in the agent's
   * session, as its client would have answered.
   */
  async #answerServer(upstream: McpUpstream, caller: McpCaller, ctx: RequestContext, reply: Json): Promise<void> {
    const headers: Record<string, string> = { ...upstream.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (caller.sessionId !== '') headers['mcp-session-id'] = caller.sessionId;
    const version = ctx.header('mcp-protocol-version');
    if (version !== '') headers['mcp-protocol-version'] = version;
    try {
      const res = await this.#pools.get(upstream.url.origin)!.request({
        origin: upstream.url.origin,
        method: 'POST',
        path: upstream.url.pathname + upstream.url.search,
        headers,
        body: JSON.stringify(reply),
        headersTimeout: this.d.timeoutMs,
        bodyTimeout: this.d.timeoutMs,
      });
      await res.body.dump();
    } catch (err) {
      this.d.logger.warn({ err, server: upstream.name }, "MCP server did not take the gateway's refusal of its request");
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
      // nor a server's error (no result to show).
      if (r.sample !== null && governed.blockedBy === null && result !== null && typeof result === 'object') {
        r.sample.result = result;
        r.sample.streamed = streamed;
      }
      const outcome: ToolCallOutcome = governed.blockedBy !== null ? 'blocked' : msg['error'] !== undefined || result?.['isError'] === true ? 'tool_error' : 'completed';
      this.d.recorder.record(r, outcome);
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
