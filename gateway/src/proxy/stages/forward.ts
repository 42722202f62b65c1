import { performance } from 'node:perf_hooks';
import { GatewayError } from '../../errors.js';
import type { ProxyContext } from '../proxy-context.js';
import type { Provider } from '../endpoints.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import type { Stage } from './stage.js';

/**
 * Sends the call over the upstream pool and waits for the answer's head. Governance time stops here (upstream time is
 * never counted as ours).
 */
export function forwardStage(upstreams: Readonly<Record<Provider, UpstreamClient | null>>): Stage {
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
          cancel: (abort) => {
            c.cancelUpstream = abort;
            // The client may have left while the request was being prepared.
            if (http.aborted) abort();
          },
        },
        c,
      );
    },
  };
}

function providerHeaders(c: ProxyContext): Record<string, string> {
  const h: Record<string, string> = {};
  if (c.providerOrganization) h['openai-organization'] = c.providerOrganization;
  if (c.providerProject) h['openai-project'] = c.providerProject;
  return h;
}
