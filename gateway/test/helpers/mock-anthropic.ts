import type { IncomingMessage, ServerResponse } from 'node:http';
import { ScriptedMock, sleep, type Exchange, type ScriptedReceived } from './scripted-mock.js';
import { anthropicMessagesProblem } from './provider-request-schemas.js';

/**
 * A mock Anthropic Messages API on loopback, speaking the real wire format: `POST /v1/messages` (a whole JSON
 * message, or with `stream: true` the SSE event sequence the official SDK parses), `POST /v1/messages/count_tokens`,
 * and errors as `{type: 'error', error: {type, message}}`. Tests script the next answers and read what it received.
 */
export interface ToolUseScript {
  /** Default `toolu_mock_<n>` (n: the block's index). */
  id?: string;
  name: string;
  /** The tool's input; in a stream it is sent as its JSON text split in ~8-character `input_json_delta` pieces. */
  input?: unknown;
  /** The input's JSON text exactly as the `input_json_delta` pieces carry it (joined, it must parse; overrides `input`). */
  inputChunks?: string[];
}

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** One raw SSE event, sent as `event: NAME\ndata: JSON\n\n`. */
export interface SseEvent {
  event: string;
  data: unknown;
}

export interface AnthropicScript {
  /** An error status answers `{type:'error', error:{type, message}}`, the type following the status unless given. */
  status?: number;
  errorType?: string;
  errorMessage?: string;
  /** Raw JSON body to answer with (overrides the generated one, streaming requests included). */
  json?: unknown;
  /** Extra response headers (e.g. `x-should-retry: 'false'`, `retry-after`). */
  headers?: Record<string, string>;
  /**
   * A text block, first in `content`; streamed as one `text_delta` per element of `chunks` (default: ~8-character
   * pieces). There is a text block when `text` or `chunks` is given, or when there are no tool uses.
   */
  text?: string;
  chunks?: string[];
  /** tool_use blocks, after the text block. */
  toolUses?: ToolUseScript[];
  /** Default `tool_use` when there are tool uses, else `end_turn`. */
  stopReason?: string;
  stopSequence?: string | null;
  /** Default `{input_tokens: 12, output_tokens: 7}`; count_tokens answers its `input_tokens`. */
  usage?: AnthropicUsage;
  /** Raw events to stream instead of the generated sequence. */
  events?: SseEvent[];
  /** Delay before the status line, ms. */
  delayMs?: number;
  /** Delay after each streamed event, ms. */
  eventDelayMs?: number;
  /** Destroy the connection after this many SSE events (ping included; 0: right after the 200 headers). */
  dropAfterEvents?: number;
  /** After this many SSE events, send `event: error` with this error and end the stream (as the API does when overloaded). */
  streamError?: { afterEvents: number; type?: string; message?: string };
}

export type AnthropicReceived = ScriptedReceived;

export interface MockAnthropicOptions {
  /**
   * As the API does (default true): a request without `anthropic-version`, or without `x-api-key` or
   * `authorization`, or whose body lacks `model`/`messages` (and `max_tokens` on /v1/messages), is a 400/401.
   */
  checkRequests?: boolean;
  /**
   * Also check a Messages body against the API's documented request schema (provider-request-schemas.ts): an
   * unknown field, a block of the wrong shape, a tool_use not answered next, is a 400 as the API answers it.
   */
  schema?: boolean;
}

const DEFAULT_TEXT = 'Hello from the mock Anthropic provider.';
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export class MockAnthropic extends ScriptedMock<AnthropicScript> {
  #messages = 0;
  readonly #checkRequests: boolean;
  readonly #schema: boolean;

  constructor(options: MockAnthropicOptions = {}) {
    super();
    this.#checkRequests = options.checkRequests ?? true;
    this.#schema = options.schema ?? false;
  }

  protected async answer(x: Exchange<AnthropicScript>): Promise<void> {
    const { req, res, script: s, got } = x;
    const { method, path, body } = got;
    const headers = { 'request-id': `req_mock_${this.received.length}`, ...s.headers };
    if (s.json !== undefined) {
      x.finished = true;
      return json(res, s.status ?? 200, s.json, headers);
    }
    if (s.status && s.status >= 400) {
      x.finished = true;
      return error(res, s.status, s.errorType ?? ERROR_TYPES[s.status] ?? 'api_error', s.errorMessage ?? 'mock error', headers);
    }
    const route = path.split('?')[0];
    if (method !== 'POST' || (route !== '/v1/messages' && route !== '/v1/messages/count_tokens')) {
      x.finished = true;
      return error(res, 404, 'not_found_error', `Not found: ${method} ${route}`, headers);
    }
    const problem = this.#checkRequests ? (checkRequest(req, body, route === '/v1/messages') ?? (this.#schema && route === '/v1/messages' ? schemaProblem(body!) : null)) : null;
    if (problem) {
      x.finished = true;
      return error(res, problem.status, ERROR_TYPES[problem.status]!, problem.message, headers);
    }
    const usage: AnthropicUsage = s.usage ?? { input_tokens: 12, output_tokens: 7 };
    if (route === '/v1/messages/count_tokens') {
      x.finished = true;
      return json(res, s.status ?? 200, { input_tokens: usage.input_tokens }, headers);
    }
    const model = typeof body?.['model'] === 'string' ? body['model'] : 'claude-mock';
    const meta: MessageMeta = {
      id: `msg_mock_${++this.#messages}`,
      model,
      stop_reason: s.stopReason ?? (s.toolUses?.length ? 'tool_use' : 'end_turn'),
      stop_sequence: s.stopSequence ?? null,
      usage,
    };
    if (body?.['stream'] !== true) {
      x.finished = true;
      const { id, stop_reason, stop_sequence } = meta;
      return json(res, s.status ?? 200, { id, type: 'message', role: 'assistant', model, content: contentBlocks(s), stop_reason, stop_sequence, usage }, headers);
    }
    // A stream never parses the tool input: a script may send broken JSON pieces on purpose.
    x.finished = await stream(res, s, s.events ?? streamEvents(s, meta), headers);
  }
}

interface MessageMeta {
  id: string;
  model: string;
  stop_reason: string;
  stop_sequence: string | null;
  usage: AnthropicUsage;
}

type Block = { type: 'text'; text: string; chunks: string[] } | { type: 'tool_use'; id: string; name: string; json: string; chunks: string[] };

function blocks(s: AnthropicScript): Block[] {
  const out: Block[] = [];
  const tools = s.toolUses ?? [];
  if (s.text !== undefined || s.chunks || tools.length === 0) {
    const text = s.text ?? (s.chunks ? s.chunks.join('') : DEFAULT_TEXT);
    out.push({ type: 'text', text, chunks: s.chunks ?? pieces(text) });
  }
  for (const t of tools) {
    const jsonText = t.inputChunks ? t.inputChunks.join('') : JSON.stringify(t.input ?? {});
    out.push({ type: 'tool_use', id: t.id ?? `toolu_mock_${out.length}`, name: t.name, json: jsonText, chunks: t.inputChunks ?? pieces(jsonText) });
  }
  return out;
}

function contentBlocks(s: AnthropicScript): unknown[] {
  return blocks(s).map((b) => (b.type === 'text' ? { type: 'text', text: b.text } : { type: 'tool_use', id: b.id, name: b.name, input: JSON.parse(b.json) as unknown }));
}

/** The API's sequence: message_start, per block start / (ping after the first start) / deltas / stop, message_delta, message_stop. */
function streamEvents(s: AnthropicScript, meta: MessageMeta): SseEvent[] {
  const { id, model, usage, stop_reason, stop_sequence } = meta;
  // message_start carries the input side of usage and a provisional output count; the final one is in message_delta.
  const skeleton = { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } };
  const events: SseEvent[] = [{ event: 'message_start', data: { type: 'message_start', message: skeleton } }];
  blocks(s).forEach((b, index) => {
    const start = b.type === 'text' ? { type: 'text', text: '' } : { type: 'tool_use', id: b.id, name: b.name, input: {} };
    events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: start } });
    if (index === 0) events.push({ event: 'ping', data: { type: 'ping' } });
    for (const c of b.chunks) {
      const delta = b.type === 'text' ? { type: 'text_delta', text: c } : { type: 'input_json_delta', partial_json: c };
      events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } });
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push({ event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason, stop_sequence }, usage: { output_tokens: usage.output_tokens } } });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}

/** Resolves whether the answer was complete (false: the client went away first). */
async function stream(res: ServerResponse, s: AnthropicScript, events: SseEvent[], headers: Record<string, string>): Promise<boolean> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
  res.flushHeaders();
  const closed = new Promise<void>((r) => res.once('close', r));
  let flushed: Promise<unknown> = Promise.resolve();
  for (let i = 0; i <= events.length; i++) {
    if (s.dropAfterEvents === i) {
      // destroy() discards writes still queued in the stream: the events before the drop must reach the client.
      await flushed;
      res.socket?.destroy();
      return true;
    }
    if (s.streamError?.afterEvents === i) {
      const e = s.streamError;
      res.end(sse({ event: 'error', data: { type: 'error', error: { type: e.type ?? 'overloaded_error', message: e.message ?? 'Overloaded' } } }));
      return true;
    }
    if (i === events.length) break;
    if (res.destroyed) return false;
    flushed = Promise.race([new Promise<void>((r) => res.write(sse(events[i]!), () => r())), closed]);
    if (s.eventDelayMs) await sleep(s.eventDelayMs);
  }
  res.end();
  return true;
}

function checkRequest(req: IncomingMessage, body: Record<string, unknown> | null, isMessages: boolean): { status: number; message: string } | null {
  if (!req.headers['x-api-key'] && !req.headers['authorization']) return { status: 401, message: 'x-api-key header is required' };
  if (!req.headers['anthropic-version']) return { status: 400, message: 'anthropic-version: header is required' };
  if (!body) return { status: 400, message: 'There was an error parsing the body of your request.' };
  if (typeof body['model'] !== 'string') return { status: 400, message: 'model: Field required' };
  if (!Array.isArray(body['messages'])) return { status: 400, message: 'messages: Field required' };
  if (isMessages && typeof body['max_tokens'] !== 'number') return { status: 400, message: 'max_tokens: Field required' };
  return null;
}

function schemaProblem(body: Record<string, unknown>): { status: number; message: string } | null {
  const message = anthropicMessagesProblem(body);
  return message === null ? null : { status: 400, message };
}

function pieces(text: string): string[] {
  return text.match(/[\s\S]{1,8}/g) ?? [];
}

function sse(e: SseEvent): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

function error(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string>): void {
  json(res, status, { type: 'error', error: { type, message }, request_id: headers['request-id'] }, headers);
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

