import { performance } from 'node:perf_hooks';
import { GatewayError } from '../../errors.js';
import type { ProxyContext } from '../proxy-context.js';
import type { Provider } from '../endpoints.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import type { Router } from '../routing/router.js';
import type { Stage } from './stage.js';

/**
 * Sends the call over the upstream pool and waits for the answer's head; a call whose model the tenant routes goes
 * through the router (its targets, retries and fallbacks; docs/routing.md). Governance time stops here (upstream time
 * is never counted as ours, nor a route's retries).
 */
export function forwardStage(upstreams: Readonly<Record<Provider, UpstreamClient | null>>, router: Router | null = null): Stage {
  return {
    name: 'forward',
    run(c) {
      const http = c.http;
      // What was judged is what is sent: raw bytes could differ from the parsed object (escapes, duplicate keys).
      if (c.request) c.upstreamBody = Buffer.from(JSON.stringify(c.request));
      c.forwardedAt = performance.now();
      c.beforeUpstreamMs = c.forwardedAt - http.startedAt;
      c.governanceMs += c.beforeUpstreamMs;
      // The head is left in c (c.upstream, c.upstreamStatus): the runner waits on the send directly.
      const route = router === null ? null : router.routeOf(c);
      if (route !== null) return router!.send(c, route, { method: c.endpoint.method ?? 'POST', forwardedKey: c.forwardedKey, trace: http.trace, extraHeaders: providerHeaders(c), passHeaders: c.passHeaders, cancel: (abort) => watchCancel(c, abort) });
      const upstream = upstreams[c.endpoint.wire.provider as Provider];
      // A provider's routes exist only when its upstream is configured: this is a wiring error, not a client's.
      if (upstream === null) throw new GatewayError('upstream_unavailable', `no upstream is configured for ${c.endpoint.wire.provider}`);
      return upstream.send(
        {
          method: c.endpoint.method ?? 'POST',
          path: c.upstreamPath || c.endpoint.upstreamPath,
          body: c.upstreamBody,
          forwardedKey: c.forwardedKey,
          trace: http.trace,
          extraHeaders: providerHeaders(c),
          passHeaders: c.passHeaders,
          cancel: (abort) => watchCancel(c, abort),
        },
        c,
      );
    },
  };
}

function watchCancel(c: ProxyContext, abort: () => void): void {
  c.cancelUpstream = abort;
  // The client may have left while the request was being prepared.
  if (c.http.aborted) abort();
}

function providerHeaders(c: ProxyContext): Record<string, string> {
  const h: Record<string, string> = {};
  if (c.providerOrganization) h['openai-organization'] = c.providerOrganization;
  if (c.providerProject) h['openai-project'] = c.providerProject;
  return h;
}
