import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { GatewayError, toEnvelope } from '../../errors.js';
import type { ProxyContext } from '../proxy-context.js';
import type { ChunkWriter, ProxyEdge } from '../proxy-edge.js';
import { blockedBody } from '../proxy-answer.js';
import type { Stage } from '../stages/stage.js';
import { toUpstreamError, type UpstreamResponse } from '../upstream/upstream-client.js';
import { verdictHeaders } from '../verdict-headers.js';
import { AnswerPiece } from './answer-piece.js';
import type { ResponseStages } from './response-stage.js';
import { SseReader, encodeSse, type SseEvent } from './sse-reader.js';

const SSE_TYPE = /^text\/event-stream\b/i;

/**
 * A streamed answer (an SSE 200 to a call that asked for a stream) is relayed event by event, each event a piece that
 * goes through the same response stages as a whole answer. The verdict headers go out before the first byte; a
 * blocking verdict or a broken upstream is told in-band as an error event. Anything else is left to the whole-answer
 * stages.
 */
export function relayStreamStage(edge: ProxyEdge, stages: ResponseStages): Stage {
  return {
    name: 'relay-stream',
    run(c) {
      const up = c.upstream as UpstreamResponse;
      if (!c.stream || up.status !== 200 || !SSE_TYPE.test(up.headers['content-type'] ?? '')) return undefined;
      c.streamed = true;
      return relay(edge, stages, c, up);
    },
  };
}

async function relay(edge: ProxyEdge, stages: ResponseStages, c: ProxyContext, up: UpstreamResponse): Promise<void> {
  const http = c.http;
  // Verdict headers go out before the first byte of the body (docs/decisions.md). x-svc-latency-ms is the governance time so far.
  c.headersSent = true;
  edge.writeHead(http, 200, { ...up.headers, 'cache-control': 'no-cache', ...verdictHeaders(c) });
  const out = new HashingWriter(edge.chunkWriter(http));
  const onAbort = http.onAbort;
  http.onAbort = () => {
    onAbort?.();
    out.release();
  };
  const reader = new SseReader();
  const run = new EventRun(stages, c);
  let governed = 0;
  try {
    for await (const chunk of up.body) {
      if (http.aborted) break;
      const t = performance.now();
      run.events(reader.push(chunk as Buffer));
      governed += performance.now() - t;
      await out.write(run.take());
    }
    if (!http.aborted) {
      const t = performance.now();
      run.events(reader.end());
      run.end();
      governed += performance.now() - t;
      await out.write(run.take());
    }
  } catch (err) {
    if (!http.aborted) {
      // The events before the one refused were judged: they go out before the error.
      await out.write(run.take());
      let body: ReturnType<typeof blockedBody> | ReturnType<typeof toEnvelope>['body'];
      if (err instanceof GatewayError && err.code === 'policy_violation') {
        body = blockedBody(c, err);
        c.cancelUpstream?.();
      } else {
        c.outcome = 'upstream_aborted';
        body = toEnvelope(toUpstreamError(err), c.decisionId || http.trace.traceId).body;
      }
      // In the format's own error shape, so that the client's SDK raises it.
      const e = c.endpoint.format.streamError(body);
      run.emit(e.name, e.data);
      await out.write(run.take());
    }
  } finally {
    c.upstreamDoneAt = performance.now();
    c.outputHash = out.digest();
    c.governanceMs += governed;
    edge.end(http);
    edge.complete(http, 200);
  }
}

/**
 * One stream's events through the stages, as text to relay: each parsed event re-encoded only when a stage rewrote
 * it. The format's end event (OpenAI's `[DONE]`) ends the answer: what the stages held goes out before it. A stage's
 * refusal propagates, and what was judged before it stays to be taken. In a format whose events are numbered, the
 * relayed events keep consecutive numbers whatever was added or dropped.
 */
class EventRun {
  #out = '';
  #ended = false;
  readonly #done: string | null;
  /** The next `sequence_number` (numbered formats, from 0), or -1. */
  #next: number;

  constructor(
    readonly stages: ResponseStages,
    readonly c: ProxyContext,
  ) {
    this.#done = c.endpoint.format.doneData;
    this.#next = c.endpoint.format.numbered === true ? 0 : -1;
  }

  events(events: readonly SseEvent[]): void {
    for (const ev of events) {
      if (ev.data === this.#done) {
        this.end();
        this.#out += encodeSse(ev);
        continue;
      }
      let body: unknown;
      try {
        body = JSON.parse(ev.data);
      } catch {
        body = null;
      }
      if (!body || typeof body !== 'object' || Array.isArray(body)) {
        this.#out += encodeSse(ev);
        continue;
      }
      const piece = new AnswerPiece(body as Record<string, unknown>, false);
      this.stages.piece(this.c, piece);
      if (piece.dropped) continue;
      if (piece.before !== null) for (const added of piece.before) this.#added(added);
      if (this.#next >= 0 && this.#number(piece.body)) piece.changed = true;
      this.#out += encodeSse(piece.changed ? { data: JSON.stringify(piece.body), other: ev.other } : ev);
    }
  }

  /** The answer ended (its end event, or the upstream's end of stream): once. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const piece of this.stages.streamEnd(this.c)) this.#added(piece.body);
  }

  /** An event a stage made (held text), under the name the format gives it. */
  #added(body: Record<string, unknown>): void {
    this.emit(this.c.endpoint.format.eventName(body), body);
  }

  /** An event of the proxy's own (held text, the error that cuts the stream), numbered when the format numbers them. */
  emit(name: string | null, data: unknown): void {
    if (this.#next >= 0 && data !== null && typeof data === 'object') this.#number(data as Record<string, unknown>);
    this.#out += encodeSse({ data: JSON.stringify(data), other: name === null ? [] : [`event: ${name}`] });
  }

  /** Gives the event the next number; true when that changed it. */
  #number(body: Record<string, unknown>): boolean {
    const n = this.#next++;
    if (body['sequence_number'] === n) return false;
    body['sequence_number'] = n;
    return true;
  }

  take(): string {
    const out = this.#out;
    this.#out = '';
    return out;
  }
}

/** The stream writer, keeping the SHA-256 of every byte relayed for the ledger. */
class HashingWriter {
  readonly #hash = createHash('sha256');

  constructor(readonly writer: ChunkWriter) {}

  write(text: string): Promise<void> {
    if (!text) return Promise.resolve();
    this.#hash.update(text);
    return this.writer.write(text);
  }

  release(): void {
    this.writer.release();
  }

  digest(): string {
    return this.#hash.digest('hex');
  }
}
