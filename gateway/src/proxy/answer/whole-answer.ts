import { performance } from 'node:perf_hooks';
import { sha256Hex } from '@aduana/shared';
import { GatewayError } from '../../errors.js';
import { CLIENT_ABORTED } from '../../http/read-body.js';
import type { ProxyContext } from '../proxy-context.js';
import type { Stage } from '../stages/stage.js';
import type { UpstreamResponse } from '../upstream/upstream-client.js';
import { AnswerPiece } from './answer-piece.js';
import type { ResponseStage } from './response-stage.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

/**
 * A whole (non-streamed) answer is read, capped (502 past `maxAnswerBytes`), and, when it is a successful JSON answer
 * of a governed endpoint (or a stored response read back), parsed into the one piece the response stages see. A streamed answer skips this and every
 * whole-answer stage.
 */
export function readAnswerStage(maxAnswerBytes: number): Stage {
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
      if (ok && (c.endpoint.governed || c.endpoint.readsStored === true) && JSON_TYPE.test(up.headers['content-type'] ?? '')) {
        let obj: Record<string, unknown>;
        try {
          obj = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
        } catch {
          throw new GatewayError('upstream_error', 'upstream answered with invalid JSON');
        }
        if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new GatewayError('upstream_error', 'upstream answer is not a JSON object');
        c.answer = new AnswerPiece(obj, true);
      }
    },
  };
}

/** A response stage over a whole answer: its one piece, when there is one (each timed on its own: PROXY_STEP_TIMINGS). */
export function overWholeAnswer(stage: ResponseStage): Stage {
  return {
    name: stage.name,
    run(c) {
      if (c.answer) stage.onPiece(c, c.answer);
    },
  };
}

/** The bytes the client will get: re-serialised when the answer was redacted, hashed for the ledger. */
export function sealAnswerStage(): Stage {
  return {
    name: 'seal-answer',
    run(c) {
      if (c.streamed) return;
      if (c.answer?.changed) c.answerBytes = Buffer.from(JSON.stringify(c.answer.body));
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
