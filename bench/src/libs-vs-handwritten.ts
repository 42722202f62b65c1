/**
 * The hot path's two candidates for a library (issue 36, item 7; docs/benchmarks-history.md, "Libraries against
 * hand-written code"). The streamed answer's SSE reader (every chunk of every streamed call): the gateway's SseReader,
 * since then built on eventsource-parser, against eventsource-parser used bare (what the wrapper costs). The ULID
 * behind every request's ids: the hand-written one, kept, against the ulid package's monotonic factory. The SSE rows
 * read one whole streamed chat completion (201 OpenAI-style events, ~40 KB) fed in network-sized pieces that cut
 * events and lines anywhere.
 *
 * Run: `npx tsc -b && node bench/dist/libs-vs-handwritten.js`.
 */
import { createParser } from 'eventsource-parser';
import { monotonicFactory } from 'ulid';
import { ulid } from '@aduana/shared';
// The reader is not part of the gateway's package exports; the build's output is read directly.
import { SseReader, type SseEvent } from '../../gateway/dist/proxy/answer/sse-reader.js';
import { fmt, microBench, table } from './harness/micro-bench.js';

const events: string[] = [];
for (let i = 0; i < 200; i++) {
  const chunk = { id: 'chatcmpl-abc123', object: 'chat.completion.chunk', created: 1764230400, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: `token ${i} of the answer, ` }, finish_reason: null }] };
  events.push(`data: ${JSON.stringify(chunk)}\n\n`);
}
events.push('data: [DONE]\n\n');
const body = new TextEncoder().encode(events.join(''));
// Deterministic piece sizes between 64 and 1,500 bytes (a packet's worth), so boundaries fall mid-line.
const pieces: Uint8Array[] = [];
for (let at = 0, seed = 7; at < body.length; ) {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  const size = 64 + (seed % 1437);
  pieces.push(body.subarray(at, at + size));
  at += size;
}

function gatewayReader(): number {
  const reader = new SseReader();
  let n = 0;
  for (const p of pieces) n += reader.push(p).length;
  return n + reader.end().length;
}

function bareLibrary(): number {
  const decoder = new TextDecoder('utf-8');
  let out: SseEvent[] = [];
  let n = 0;
  const parser = createParser({
    onEvent: (m) => {
      const other: string[] = [];
      if (m.event !== undefined) other.push(`event: ${m.event}`);
      if (m.id !== undefined) other.push(`id: ${m.id}`);
      out.push({ data: m.data, other });
    },
  });
  for (const p of pieces) {
    parser.feed(decoder.decode(p, { stream: true }));
    n += out.length;
    out = [];
  }
  parser.feed(decoder.decode());
  parser.reset({ consume: true });
  return n + out.length;
}

if (gatewayReader() !== bareLibrary()) throw new Error(`the two readers disagree: ${gatewayReader()} vs ${bareLibrary()}`);
const monotonic = monotonicFactory();

const rows = await microBench({
  'SSE: gateway SseReader, one streamed answer': gatewayReader,
  'SSE: eventsource-parser 3 bare, one streamed answer': bareLibrary,
  'id: ulid() (hand-written, monotonic)': () => ulid(),
  'id: ulid package monotonicFactory()': () => monotonic(),
});
console.log(`stream ${body.length} bytes in ${pieces.length} pieces, ${events.length} events; Node ${process.version}`);
console.log(table(['task', 'ops/s', 'mean µs', 'p50 µs', 'p99 µs'], rows.map((r) => [r.name, r.opsPerSec, fmt(r.meanUs, 3), fmt(r.p50Us, 3), fmt(r.p99Us, 3)])));
