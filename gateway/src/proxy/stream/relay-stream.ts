import { performance } from 'node:perf_hooks';
import { GatewayError, toEnvelope } from '../../errors.js';
import type { HttpServer } from '../../http/server.js';
import { RawChunkWriter, endRaw, writeRawHead } from '../../http/raw-response.js';
import type { Triggered } from '../../policy/evaluation.js';
import { isBlockingAction } from '../../policy/verdict.js';
import type { TenantRuntimes } from '../../runtime/tenant-runtime.js';
import type { PriceTable } from '../pricing/price-table.js';
import type { ProxyContext } from '../proxy-context.js';
import { blockedBody } from '../proxy-answer.js';
import { applyOutputVerdict, outputTriggers, recordUsage } from '../stages/response-stages.js';
import type { Step } from '../stages/stage.js';
import { toUpstreamError, type UpstreamResponse } from '../upstream/upstream-client.js';
import { verdictHeaders } from '../verdict-headers.js';
import { StreamGovernor, type StreamHooks } from './stream-governor.js';

const SSE_TYPE = /^text\/event-stream\b/i;

/**
 * A streamed answer (an SSE 200 to a call that asked for a stream) is relayed event by event through a StreamGovernor,
 * which takes the response stages' steps per event (usage, redaction, output policies). The verdict headers go out
 * before the first byte; a blocking verdict or a broken upstream is told in-band as an error event. Anything else is
 * left to the whole-answer steps.
 */
export function relayStreamStep(server: HttpServer, runtimes: TenantRuntimes, prices: PriceTable): Step {
  const hooks: StreamHooks = {
    onUsage: (c, usage) => recordUsage(c, runtimes, prices, usage),
    onOutputTriggers: (c, triggered) => {
      applyOutputVerdict(c, triggered);
      return isBlocking(triggered);
    },
  };
  return {
    name: 'relay-stream',
    run(c) {
      const up = c.upstream as UpstreamResponse;
      if (!c.stream || up.status !== 200 || !SSE_TYPE.test(up.headers['content-type'] ?? '')) return undefined;
      c.streamed = true;
      return relay(server, hooks, c, up);
    },
  };
}

async function relay(server: HttpServer, hooks: StreamHooks, c: ProxyContext, up: UpstreamResponse): Promise<void> {
  const http = c.http;
  const governor = new StreamGovernor(c, hooks);
  // Verdict headers go out before the first byte of the body (docs/decisions.md). x-svc-latency-ms is the governance time so far.
  c.headersSent = true;
  writeRawHead(http, 200, { ...up.headers, 'cache-control': 'no-cache', ...verdictHeaders(c) });
  const writer = new RawChunkWriter(http);
  const onAbort = http.onAbort;
  http.onAbort = () => {
    onAbort?.();
    writer.release();
  };
  let governed = 0;
  try {
    for await (const chunk of up.body) {
      if (http.aborted) break;
      const t = performance.now();
      const out = governor.push(chunk as Buffer);
      governed += performance.now() - t;
      await writer.write(out);
      if (governor.blocked) {
        c.outcome = 'blocked';
        await writer.write(governor.errorEvent(blockedBody(c, new GatewayError('policy_violation', 'answer blocked by policy', c.rule))));
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
      await writer.write(tail);
    }
  } catch (err) {
    if (!http.aborted) {
      c.outcome = 'upstream_aborted';
      const env = toEnvelope(toUpstreamError(err), c.decisionId || http.trace.traceId);
      await writer.write(governor.errorEvent(env.body));
    }
  } finally {
    c.answerText = governor.answerText;
    c.outputHash = governor.outputHash;
    c.governanceMs += governed;
    endRaw(http);
    server.complete(http, 200);
  }
}

function isBlocking(triggered: readonly Triggered[]): boolean {
  return triggered.some((t) => isBlockingAction(t.action));
}
