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
  return h;
}
