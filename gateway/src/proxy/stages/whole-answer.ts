import { performance } from 'node:perf_hooks';
import { sha256Hex } from '@aduana/shared';
import { GatewayError } from '../../errors.js';
import { CLIENT_ABORTED } from '../../http/read-body.js';
import type { ProxyContext } from '../proxy-context.js';
import type { UpstreamResponse } from '../upstream/upstream-client.js';
import type { ResponseStage, Step } from './stage.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

/**
 * A whole (non-streamed) answer is read, capped (502 past `maxAnswerBytes`), and, when it is a successful JSON answer
 * of a governed endpoint, parsed for the response stages. A streamed answer skips this and every whole-answer step.
 */
export function readAnswerStep(maxAnswerBytes: number): Step {
  return {
    name: 'read-answer',
    async run(c) {
      if (c.streamed) return;
      const up = c.upstream as UpstreamResponse;
      const raw = await readAll(up, maxAnswerBytes, c);
      c.upstreamDoneAt = performance.now();
      c.answerBytes = raw;
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
        c.answer = obj;
      }
    },
  };
}

/** A response stage as a step: it runs over the parsed whole answer, when there is one. */
export function overWholeAnswer(stage: ResponseStage): Step {
  return {
    name: `answer-${stage.name}`,
    run(c) {
      if (c.answer) stage.run(c, c.answer);
    },
  };
}

/** The bytes the client will get: re-serialised when the answer was redacted, hashed for the ledger. */
export function sealAnswerStep(): Step {
  return {
    name: 'seal-answer',
    run(c) {
      if (c.streamed) return;
      if (c.answer && c.outputRedactions > 0) c.answerBytes = Buffer.from(JSON.stringify(c.answer));
      c.outputHash = sha256Hex(c.answerBytes as Buffer);
      c.governanceMs += performance.now() - c.upstreamDoneAt;
    },
  };
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
