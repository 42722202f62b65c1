import type { Logger } from '@aduana/shared';
import { GatewayError, toEnvelope } from '../errors.js';
import type { ProxyContext } from './proxy-context.js';
import type { ProxyEdge } from './proxy-edge.js';
import { verdictHeaders } from './verdict-headers.js';
import type { ProxyErrorBody } from './wire/wire-format.js';

/** Writes a whole proxy answer (the verdict headers are the caller's) and marks the request answered. */
export function writeProxyAnswer(edge: ProxyEdge, c: ProxyContext, status: number, headers: Readonly<Record<string, string>>, body: Buffer): void {
  if (!edge.writeWhole(c.http, status, headers, body)) return;
  c.headersSent = true;
  edge.complete(c.http, status);
}

/**
 * Answers a call that a stage refused or that failed: the error envelope with the verdict headers, or, once a stream
 * has started, just the end of it (the error was told in-band).
 */
export function answerProxyFailure(edge: ProxyEdge, logger: Logger, c: ProxyContext, err: unknown): void {
  const http = c.http;
  // Refused before forwarding (size, auth, validation, a policy): the call did not get through, and all its time so
  // far was governance (its verdict headers and ledger entry report it).
  if (c.forwardedAt === 0) {
    c.deniedBeforeForward = true;
    c.beforeUpstreamMs = performance.now() - http.startedAt;
    c.governanceMs = c.beforeUpstreamMs;
  }
  if (err instanceof GatewayError && (err.code === 'upstream_unavailable' || err.code === 'upstream_timeout' || err.code === 'upstream_unreachable' || err.code === 'upstream_error')) {
    c.outcome = err.code === 'upstream_error' ? 'upstream_error' : 'upstream_unavailable';
  } else if (err instanceof GatewayError && err.status < 500 && c.outcome === 'completed') {
    // Refused after its verdict, nothing relayed: a route that cannot serve it, a field its target cannot express.
    c.outcome = 'refused';
  } else if (!(err instanceof GatewayError)) {
    c.outcome = 'error';
    logger.error({ err, traceId: http.trace.traceId }, 'proxy error');
  }
  if (c.headersSent) {
    edge.end(http);
    edge.complete(http, c.upstreamStatus);
    return;
  }
  const env = toEnvelope(err, c.decisionId || http.trace.traceId);
  const ours = env.body.error.type === 'svc_policy_violation' ? blockedBody(c, err) : env.body;
  // In the provider's own error shape, so that its SDK raises our message (docs/decisions.md, "Errors").
  const body = c.endpoint.wire.errorBody(env.status, ours);
  writeProxyAnswer(edge, c, env.status, { 'content-type': 'application/json', ...env.headers, ...verdictHeaders(c) }, Buffer.from(JSON.stringify(body)));
}

/** The proxy's 403: the envelope plus `verdict` and `policy` beside `error` (docs/decisions.md, "Errors"). */
export function blockedBody(c: ProxyContext, err: unknown): ProxyErrorBody {
  const env = toEnvelope(err, c.decisionId || c.http.trace.traceId).body;
  const t = [...(c.evaluation?.triggered ?? []), ...c.outputTriggered].find((x) => x.policyId === c.rule);
  return { ...env, verdict: 'DENIED', policy: { id: c.rule, type: t?.type ?? '', action: t?.action ?? '', version: c.policySet?.label ?? '' } };
}
