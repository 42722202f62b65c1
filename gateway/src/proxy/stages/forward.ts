import { performance } from 'node:perf_hooks';
import type { RequestContext } from '../../http/request-context.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import type { Step } from './stage.js';

/**
 * Sends the call over the upstream pool and waits for the answer's head. Governance time stops here (upstream time is
 * never counted as ours).
 */
export function forwardStep(upstream: UpstreamClient): Step {
  return {
    name: 'forward',
    run(c) {
      const http = c.http;
      // What was judged is what is sent: raw bytes could differ from the parsed object (escapes, duplicate keys).
      if (c.request) c.upstreamBody = Buffer.from(JSON.stringify(c.request));
      c.governanceMs += performance.now() - http.startedAt;
      c.forwardedAt = performance.now();
      // The head is left in c (c.upstream, c.upstreamStatus): the runner waits on the send directly.
      return upstream.send(
        {
          method: c.endpoint.kind === 'models' ? 'GET' : 'POST',
          path: c.endpoint.upstreamPath,
          body: c.upstreamBody,
          forwardedAuthorization: http.forwardedAuthorization,
          trace: http.trace,
          extraHeaders: providerHeaders(http),
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

function providerHeaders(http: RequestContext): Record<string, string> {
  const h: Record<string, string> = {};
  if (http.providerOrganization) h['openai-organization'] = http.providerOrganization;
  if (http.providerProject) h['openai-project'] = http.providerProject;
  return h;
}
