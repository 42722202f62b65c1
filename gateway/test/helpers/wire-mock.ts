import type { ServerResponse } from 'node:http';
import { ScriptedMock, type Exchange } from './scripted-mock.js';

/**
 * One mock provider for every wire format, driven by a table: each row says which upstream paths are its format's,
 * whether a call streams, and how a scripted answer is written in that format, whole or as its stream's events. A
 * script is the same for every format (the text, its chunks, usage, where the connection drops), so a conformance
 * suite drives each format with the same scripts.
 */
export interface WireScript {
  /** The answer's text, streamed in `chunks` when the call streams (default: the chunks joined, else 'ok'). */
  text?: string;
  chunks?: string[];
  usage?: { input: number; output: number };
  /** Destroy the connection right after the event that carries this many text chunks. */
  dropAfterChunks?: number;
  delayMs?: number;
  /** Answer this status with a provider's JSON error (and `headers`, e.g. Retry-After) instead of the answer. */
  status?: number;
  headers?: Record<string, string>;
  /** Keys (as sent in the provider's key header, without `Bearer `) answered 401, as a provider answers a revoked key. */
  refuseKeys?: string[];
}

/** One event of a format's stream: its SSE name (or none), its data, and whether it carries a text chunk. */
interface MockEvent {
  event: string | null;
  data: unknown;
  chunk: boolean;
}

type Json = Record<string, unknown>;

/** How one format answers. */
interface WireAnswers {
  matches(path: string): boolean;
  streams(path: string, body: Json): boolean;
  whole(text: string, usage: { input: number; output: number }, body: Json): unknown;
  events(chunks: readonly string[], usage: { input: number; output: number }, body: Json): MockEvent[];
  /** The data of the event that ends a stream (OpenAI's `[DONE]`), or null. */
  done: string | null;
}

const model = (body: Json, fallback: string) => (typeof body['model'] === 'string' ? body['model'] : fallback);

/** The formats the mock speaks, by the upstream path they are called on. */
export const WIRE_ANSWERS: Readonly<Record<'openai-chat' | 'anthropic-messages' | 'gemini', WireAnswers>> = {
  // OpenAI's and Azure's chat completions: choices, `[DONE]`, usage in its own chunk when the call asked for it.
  'openai-chat': {
    matches: (path) => path.split('?')[0]!.endsWith('/chat/completions'),
    streams: (_path, body) => body['stream'] === true,
    whole: (text, u, body) => ({
      id: 'chatcmpl-mock',
      object: 'chat.completion',
      created: 0,
      model: model(body, 'gpt-mock'),
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output },
    }),
    events(chunks, u, body) {
      const head = { id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 0, model: model(body, 'gpt-mock') };
      const events: MockEvent[] = chunks.map((content, i) => ({ event: null, data: { ...head, choices: [{ index: 0, delta: i === 0 ? { role: 'assistant', content } : { content }, finish_reason: null }] }, chunk: true }));
      events.push({ event: null, data: { ...head, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }, chunk: false });
      if ((body['stream_options'] as Json | undefined)?.['include_usage'] === true) {
        events.push({ event: null, data: { ...head, choices: [], usage: { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output } }, chunk: false });
      }
      return events;
    },
    done: '[DONE]',
  },
  // Anthropic's Messages: content blocks; a stream's named events, input tokens first, output tokens last.
  'anthropic-messages': {
    matches: (path) => path.split('?')[0] === '/v1/messages',
    streams: (_path, body) => body['stream'] === true,
    whole: (text, u, body) => ({ id: 'msg_mock', type: 'message', role: 'assistant', model: model(body, 'claude-mock'), content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: u.input, output_tokens: u.output } }),
    events(chunks, u, body) {
      const message = { id: 'msg_mock', type: 'message', role: 'assistant', model: model(body, 'claude-mock'), content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: u.input, output_tokens: 1 } };
      const named = (event: string, data: Json, chunk = false): MockEvent => ({ event, data: { type: event, ...data }, chunk });
      return [
        named('message_start', { message }),
        named('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
        named('ping', {}),
        ...chunks.map((text) => named('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }, true)),
        named('content_block_stop', { index: 0 }),
        named('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: u.output } }),
        named('message_stop', {}),
      ];
    },
    done: null,
  },
  // Gemini: candidates' parts; a stream's chunks are whole responses, usage as running totals, the last one finished.
  gemini: {
    matches: (path) => /:(generateContent|streamGenerateContent)(\?|$)/.test(path),
    streams: (path) => path.includes(':streamGenerateContent'),
    whole: (text, u) => ({
      candidates: [{ index: 0, content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: u.input, candidatesTokenCount: u.output, totalTokenCount: u.input + u.output },
    }),
    events: (chunks, u) =>
      chunks.map((text, i) => ({
        event: null,
        data: {
          candidates: [{ index: 0, content: { role: 'model', parts: [{ text }] }, ...(i === chunks.length - 1 ? { finishReason: 'STOP' } : {}) }],
          usageMetadata: { promptTokenCount: u.input, candidatesTokenCount: i + 1, totalTokenCount: u.input + i + 1 },
        },
        chunk: true,
      })),
    done: null,
  },
};

export class WireMock extends ScriptedMock<WireScript> {
  protected async answer(x: Exchange<WireScript>): Promise<void> {
    const { res, script: s, got } = x;
    const body = got.body ?? {};
    const format = Object.values(WIRE_ANSWERS).find((f) => f.matches(got.path));
    x.finished = true;
    if (!format || got.method !== 'POST') return json(res, 404, { error: { message: `mock: no format answers ${got.method} ${got.path}` } });
    const key = String(got.headers['authorization'] ?? got.headers['x-api-key'] ?? got.headers['api-key'] ?? got.headers['x-goog-api-key'] ?? '').replace(/^Bearer /, '');
    if (s.refuseKeys?.includes(key)) return json(res, 401, { error: { message: 'mock: invalid api key', type: 'invalid_request_error' } });
    if (s.status !== undefined) return json(res, s.status, { error: { message: `mock: status ${s.status}`, type: 'server_error' } }, s.headers);
    const chunks = s.chunks ?? [s.text ?? 'ok'];
    const usage = s.usage ?? { input: 10, output: 5 };
    if (!format.streams(got.path, body)) return json(res, 200, format.whole(s.text ?? chunks.join(''), usage, body));
    x.finished = await stream(res, format, format.events(chunks, usage, body), s.dropAfterChunks);
  }
}

/** Resolves whether the answer was complete (false: the client went away first). */
async function stream(res: ServerResponse, format: WireAnswers, events: MockEvent[], dropAfterChunks: number | undefined): Promise<boolean> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.flushHeaders();
  const closed = new Promise<void>((r) => res.once('close', r));
  let chunks = 0;
  for (const e of events) {
    if (res.destroyed) return false;
    const flushed = Promise.race([new Promise<void>((r) => res.write(sse(e.event, e.data), () => r())), closed]);
    if (e.chunk) chunks++;
    if (dropAfterChunks !== undefined && e.chunk && chunks === dropAfterChunks) {
      // destroy() discards writes still queued: the events before the drop must reach the client first.
      await flushed;
      res.socket?.destroy();
      return true;
    }
  }
  res.end(format.done === null ? undefined : sse(null, format.done));
  return true;
}

function sse(event: string | null, data: unknown): string {
  return `${event === null ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
