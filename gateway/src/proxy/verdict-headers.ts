import type { ProxyContext } from './proxy-context.js';

/**
 * The verdict headers on every proxy response (docs/decisions.md, "Errors"), errors included: verdict, trace (the decision id, for ledger lookup),
 * rule (DENIED only), policy version, governance latency. `x-svc-latency-ms` is an integer as documented; our
 * overhead is usually well under a millisecond, so `x-svc-latency-us` carries the precise figure.
 */
export function verdictHeaders(c: ProxyContext): Record<string, string> {
  const denied = c.outcome === 'blocked' || c.deniedBeforeForward;
  const h: Record<string, string> = {
    'x-svc-verdict': denied ? 'DENIED' : 'ALLOWED',
    'x-svc-trace-id': c.decisionId || c.http.trace.traceId,
    'x-svc-policy': c.policySet?.label ?? 'none',
    'x-svc-latency-ms': String(Math.round(c.governanceMs)),
    'x-svc-latency-us': String(Math.round(c.governanceMs * 1000)),
  };
  if (denied && c.rule) h['x-svc-rule'] = c.rule;
  // A routed call: the target that answered (none when none did) and how many attempts it took.
  if (c.route !== null) {
    if (c.route.target) h['x-svc-target'] = c.route.target;
    h['x-svc-attempts'] = String(c.route.attempts.length);
  }
  return h;
}

/**
 * The verdict headers of an answer under /v1/proxy that no proxied call made (a path or method not proxied): the call
 * did not get through, no tenant's policy set was consulted, no governance time was spent. The server writes
 * `x-svc-trace-id` (the request's trace id, the envelope's) on every answer.
 */
export const NOT_PROXIED_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-svc-verdict': 'DENIED',
  'x-svc-policy': 'none',
  'x-svc-latency-ms': '0',
  'x-svc-latency-us': '0',
});
