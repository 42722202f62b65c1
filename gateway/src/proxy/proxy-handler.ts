import { performance } from 'node:perf_hooks';
import { newId, sha256Hex, type Logger } from '@aduana/shared';
import { GatewayError, toEnvelope } from '../errors.js';
import { CLIENT_ABORTED } from '../http/read-body.js';
import type { RequestContext } from '../http/request-context.js';
import { HANDLED, type HttpServer } from '../http/server.js';
import { statusLine } from '../http/status-text.js';
import { endWithBody } from '../http/write-body.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { Triggered } from '../policy/evaluation.js';
import { VERDICT_RANK, verdictOf } from '../policy/types.js';
import type { TenantRuntimes } from '../runtime/tenant-runtime.js';
import type { Endpoint } from './endpoints.js';
import type { Pipeline } from './pipeline.js';
import type { RequestStage } from './stages/stage.js';
import { ProxyContext } from './proxy-context.js';
import type { PriceTable } from './pricing/price-table.js';
import type { MetricStore } from '../telemetry/metric-store.js';
import { applyOutputVerdict, outputTriggers, recordUsage } from './stages/response-stages.js';
import { StreamGovernor, type StreamHooks } from './stream/stream-governor.js';
import type { UpstreamClient, UpstreamResponse } from './upstream/upstream-client.js';
import { toUpstreamError } from './upstream/upstream-client.js';
import { verdictHeaders } from './verdict-headers.js';

export interface ProxyHandlerDeps {
  server: HttpServer;
  pipeline: Pipeline;
  upstream: UpstreamClient;
  audit: AuditTrail;
  runtimes: TenantRuntimes;
  prices: PriceTable;
  metrics: MetricStore;
  logger: Logger;
  maxBodyBytes: number;
  /** Largest non-streamed answer accepted from the upstream (502 past it). */
  maxAnswerBytes: number;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;
const SSE_TYPE = /^text\/event-stream\b/i;

/**
 * Runs one proxied call: the pipeline's request stages, the forward over the upstream pool, then either the whole
 * answer through the response stages or the stream through a StreamGovernor, and the audit record at the end.
 * Answers on the uWS response itself (headers before the first byte for streams, backpressure on writes).
 */
export class ProxyHandler {
  readonly #hooks: StreamHooks;
  readonly #authenticate: RequestStage;

  constructor(private readonly d: ProxyHandlerDeps) {
    this.#authenticate = d.pipeline.request[0] as RequestStage;
    // handle() runs it ahead of the body read: the pipeline must start with it.
    if (this.#authenticate.name !== 'authenticate') throw new Error('the proxy pipeline must start with the authenticate stage');
    this.#hooks = {
      onUsage: (c, usage) => recordUsage(c, d.runtimes, d.prices, usage),
      onOutputTriggers: (c, triggered) => {
        applyOutputVerdict(c, triggered);
        return isBlocking(triggered);
      },
    };
  }

  async handle(http: RequestContext, endpoint: Endpoint): Promise<typeof HANDLED> {
    const c = new ProxyContext(http, endpoint);
    try {
      // Authentication and the plan limit come from the headers, before any body byte is read.
      this.#authenticate.run(c);
      if (endpoint.kind !== 'models') http.rawBody = await this.d.server.readBody(http, this.d.maxBodyBytes);
      http.onAbort = () => {
        if (c.outcome === 'completed') c.outcome = 'client_aborted';
        c.cancelUpstream?.();
      };
      const waiting = this.#runRequestStages(c, 1);
      if (waiting) await waiting;
      // What was judged is what is sent: raw bytes could differ from the parsed object (escapes, duplicate keys).
      if (c.request) c.upstreamBody = Buffer.from(JSON.stringify(c.request));
      c.governanceMs += performance.now() - http.startedAt;
      c.forwardedAt = performance.now();
      const up = await this.d.upstream.send({
        method: endpoint.kind === 'models' ? 'GET' : 'POST',
        path: endpoint.upstreamPath,
        body: c.upstreamBody,
        forwardedAuthorization: http.forwardedAuthorization,
        trace: http.trace,
        extraHeaders: providerHeaders(http),
        cancel: (abort) => {
          c.cancelUpstream = abort;
          // The client may have left while the request was being prepared.
          if (http.aborted) abort();
        },
      });
      c.upstreamStatus = up.status;
      if (c.stream && up.status === 200 && SSE_TYPE.test(up.headers['content-type'] ?? '')) await this.#relayStream(c, up);
      else await this.#relayWhole(c, up);
    } catch (err) {
      if (err !== CLIENT_ABORTED) this.#fail(c, err);
    } finally {
      if (!c.recorded) this.#recordAfterAnswer(c);
    }
    return HANDLED;
  }

  /**
   * Runs the request stages from `from` (authentication ran before the body was read); synchronous unless a stage has
   * to wait (then the rest run after it).
   */
  #runRequestStages(c: ProxyContext, from: number): Promise<void> | undefined {
    if (c.endpoint.governed) {
      const stages = this.d.pipeline.request;
      for (let i = from; i < stages.length; i++) {
        const waiting = (stages[i] as RequestStage).run(c);
        if (waiting) return waiting.then(() => this.#runRequestStages(c, i + 1));
      }
      return undefined;
    }
    // A passthrough (models) is authenticated and recorded, not judged.
    c.decisionId = newId('dec');
    return undefined;
  }

  async #relayWhole(c: ProxyContext, up: UpstreamResponse): Promise<void> {
    const raw = await readAll(up, this.d.maxAnswerBytes, c);
    c.upstreamDoneAt = performance.now();
    let answer = raw;
    const ok = up.status >= 200 && up.status < 300;
    if (!ok) c.outcome = 'upstream_error';
    if (ok && c.endpoint.governed && JSON_TYPE.test(up.headers['content-type'] ?? '')) {
      let obj: Record<string, unknown>;
      try {
        obj = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        throw new GatewayError('upstream_error', 'upstream answered with invalid JSON');
      }
      if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new GatewayError('upstream_error', 'upstream answer is not a JSON object');
      for (const stage of this.d.pipeline.response) stage.run(c, obj);
      if (c.outputRedactions > 0) answer = Buffer.from(JSON.stringify(obj));
    }
    c.outputHash = sha256Hex(answer);
    c.governanceMs += performance.now() - c.upstreamDoneAt;
    // The entry is enqueued before the answer goes out: an entry the ledger refuses withholds the answer.
    try {
      this.#record(c);
    } catch (err) {
      c.outcome = 'error';
      this.d.logger.error({ err, traceId: c.http.trace.traceId }, 'ledger refused a proxy entry; answer withheld');
      throw new GatewayError('internal', 'the call could not be recorded in the ledger; its answer is withheld');
    }
    this.#write(c, up.status, { ...up.headers, ...verdictHeaders(c) }, answer);
  }

  async #relayStream(c: ProxyContext, up: UpstreamResponse): Promise<void> {
    const http = c.http;
    const governor = new StreamGovernor(c, this.#hooks);
    // Verdict headers go out before the first byte of the body (spec). x-svc-latency-ms is the governance time so far.
    this.#writeHead(c, 200, { ...up.headers, 'cache-control': 'no-cache', ...verdictHeaders(c) });
    let waitWritable: (() => void) | null = null;
    const onAbort = http.onAbort;
    http.onAbort = () => {
      onAbort?.();
      waitWritable?.();
    };
    const send = async (text: string) => {
      if (!text || http.aborted) return;
      let ok = true;
      http.res.cork(() => {
        ok = http.res.write(text);
      });
      if (!ok && !http.aborted) {
        // Backpressure: stop reading the upstream until the client drains (never buffer a whole answer).
        await new Promise<void>((resolve) => {
          waitWritable = resolve;
          http.res.onWritable(() => {
            waitWritable = null;
            resolve();
            return true;
          });
        });
      }
    };
    let governed = 0;
    try {
      for await (const chunk of up.body) {
        if (http.aborted) break;
        const t = performance.now();
        const out = governor.push(chunk as Buffer);
        governed += performance.now() - t;
        await send(out);
        if (governor.blocked) {
          c.outcome = 'blocked';
          await send(governor.errorEvent(this.#blockedBody(c, new GatewayError('policy_violation', 'answer blocked by policy', c.rule))));
          c.cancelUpstream?.();
          break;
        }
      }
      if (!http.aborted && !governor.blocked) {
        const t = performance.now();
        const tail = governor.end();
        // Checks that need the whole answer (citations) can only be recorded now: the text has been sent.
        applyOutputVerdict(c, outputTriggers(c, null, null).filter((tr) => tr.type === 'hallucination_shield'));
        governed += performance.now() - t;
        await send(tail);
      }
    } catch (err) {
      if (!http.aborted) {
        c.outcome = 'upstream_aborted';
        const env = toEnvelope(toUpstreamError(err), c.decisionId || http.trace.traceId);
        await send(governor.errorEvent(env.body));
      }
    } finally {
      c.answerText = governor.answerText;
      c.outputHash = governor.outputHash;
      c.governanceMs += governed;
      if (!http.aborted) http.res.cork(() => http.res.end());
      this.d.server.complete(http, 200);
    }
  }

  #fail(c: ProxyContext, err: unknown): void {
    const http = c.http;
    // Refused before forwarding (size, auth, validation): the call did not get through.
    if (c.forwardedAt === 0) c.deniedBeforeForward = true;
    if (err instanceof GatewayError && (err.code === 'upstream_unavailable' || err.code === 'upstream_error')) {
      c.outcome = err.code === 'upstream_error' ? 'upstream_error' : 'upstream_unavailable';
    } else if (!(err instanceof GatewayError)) {
      c.outcome = 'error';
      this.d.logger.error({ err, traceId: http.trace.traceId }, 'proxy error');
    }
    if (c.headersSent) {
      if (!http.aborted) http.res.cork(() => http.res.end());
      this.d.server.complete(http, c.upstreamStatus);
      return;
    }
    const env = toEnvelope(err, c.decisionId || http.trace.traceId);
    const body = env.body.error.type === 'svc_policy_violation' ? this.#blockedBody(c, err) : env.body;
    this.#write(c, env.status, { 'content-type': 'application/json', ...env.headers, ...verdictHeaders(c) }, Buffer.from(JSON.stringify(body)));
  }

  /** The proxy's 403: the envelope plus `verdict` and `policy` beside `error` (spec "Errors"). */
  #blockedBody(c: ProxyContext, err: unknown) {
    const env = toEnvelope(err, c.decisionId || c.http.trace.traceId).body;
    const t = [...(c.evaluation?.triggered ?? []), ...c.outputTriggered].find((x) => x.policyId === c.rule);
    return { ...env, verdict: 'DENIED', policy: { id: c.rule, type: t?.type ?? '', action: t?.action ?? '', version: c.policySet?.label ?? '' } };
  }

  #writeHead(c: ProxyContext, status: number, headers: Record<string, string>): void {
    const http = c.http;
    c.headersSent = true;
    if (http.aborted) return;
    http.res.cork(() => {
      http.res.writeStatus(statusLine(status));
      for (const k in headers) http.res.writeHeader(k, headers[k] as string);
    });
  }

  #write(c: ProxyContext, status: number, headers: Record<string, string>, body: Buffer): void {
    const http = c.http;
    if (http.aborted || http.responded) return;
    c.headersSent = true;
    http.res.cork(() => {
      http.res.writeStatus(statusLine(status));
      for (const k in headers) http.res.writeHeader(k, headers[k] as string);
      endWithBody(http.res, body, () => http.aborted);
    });
    this.d.server.complete(http, status);
  }

  /** Streams and refusals are recorded after the client was answered (fields are capped before forwarding). */
  #recordAfterAnswer(c: ProxyContext): void {
    try {
      this.#record(c);
    } catch (err) {
      this.d.logger.error({ err, traceId: c.http.trace.traceId }, 'ledger refused a proxy entry');
    }
  }

  /** Every call that reached a verdict goes into the decision index and the tenant's hash chain (once). */
  #record(c: ProxyContext): void {
    c.recorded = true;
    const p = c.principal;
    if (!p || (c.decisionId === '' && c.endpoint.governed)) return;
    if (c.costBrl > 0) this.d.metrics.record(p.tenantId, 'budget.cost_brl', c.http.agentId, c.costBrl, Date.now());
    const triggered = [...(c.evaluation?.triggered ?? []), ...c.outputTriggered];
    this.d.audit.record(
      {
        decision_id: c.decisionId,
        tenant_id: p.tenantId,
        agent_id: c.http.agentId,
        execution_status: c.verdict,
        risk_score: c.riskScore,
        event_type: c.endpoint.eventType,
        trace_id: c.http.trace.traceId,
        created_at: new Date().toISOString(),
        rule: c.rule,
        policy_version: c.policySet?.label ?? '',
        policies_evaluated: c.evaluation?.policiesEvaluated ?? 0,
        triggered,
        resolution: null,
      },
      {
        endpoint: c.endpoint.kind,
        model: c.model,
        stream: c.stream,
        outcome: c.outcome,
        upstream_status: c.upstreamStatus,
        input_redactions: c.inputRedactions,
        output_redactions: c.outputRedactions,
        usage: c.usage,
        cost_brl: c.costBrl,
        output_sha256: c.outputHash,
        governance_us: Math.round(c.governanceMs * 1000),
      },
      { session_id: c.sessionId, decision_id: c.decisionId },
    );
  }
}

function isBlocking(triggered: readonly Triggered[]): boolean {
  return triggered.some((t) => VERDICT_RANK[verdictOf(t.action)] > 0);
}

function providerHeaders(http: RequestContext): Record<string, string> {
  const h: Record<string, string> = {};
  if (http.providerOrganization) h['openai-organization'] = http.providerOrganization;
  if (http.providerProject) h['openai-project'] = http.providerProject;
  return h;
}

async function readAll(up: UpstreamResponse, max: number, c: ProxyContext): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of up.body) {
      size += (chunk as Buffer).length;
      if (size > max) {
        up.body.destroy(new Error('answer too large'));
        throw new GatewayError('upstream_error', 'upstream answer is larger than the gateway accepts');
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (c.http.aborted) throw CLIENT_ABORTED;
    throw err instanceof GatewayError ? err : new GatewayError('upstream_error', 'upstream connection broke while answering');
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}
