import type { HttpServer } from '../../http/server.js';
import { writeProxyAnswer } from '../proxy-answer.js';
import type { UpstreamResponse } from '../upstream/upstream-client.js';
import { verdictHeaders } from '../verdict-headers.js';
import type { Step } from './stage.js';

/** A whole answer goes out last, with the upstream's relayed headers and the verdict headers. */
export function writeAnswerStep(server: HttpServer): Step {
  return {
    name: 'write-answer',
    run(c) {
      if (c.streamed) return;
      const up = c.upstream as UpstreamResponse;
      writeProxyAnswer(server, c, up.status, { ...up.headers, ...verdictHeaders(c) }, c.answerBytes as Buffer);
    },
  };
}
