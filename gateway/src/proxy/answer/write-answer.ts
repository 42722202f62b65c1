import { writeProxyAnswer } from '../proxy-answer.js';
import type { ProxyEdge } from '../proxy-edge.js';
import type { Stage } from '../stages/stage.js';
import type { UpstreamResponse } from '../upstream/upstream-client.js';
import { verdictHeaders } from '../verdict-headers.js';

/** A whole answer goes out last, with the upstream's relayed headers and the verdict headers. */
export function writeAnswerStage(edge: ProxyEdge): Stage {
  return {
    name: 'write-answer',
    run(c) {
      if (c.streamed) return;
      const up = c.upstream as UpstreamResponse;
      writeProxyAnswer(edge, c, up.status, { ...up.headers, ...verdictHeaders(c) }, c.answerBytes as Buffer);
    },
  };
}
