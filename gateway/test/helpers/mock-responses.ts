import { ScriptedMock, sleep, type Exchange } from './scripted-mock.js';

/**
 * A mock of OpenAI's Responses API on loopback, speaking the real wire format: `POST /v1/responses` (a whole response
 * object, or with `stream: true` the named SSE events with their `sequence_number`s that the official SDK and the
 * Vercel AI SDK parse), and the stored responses it made: `GET` and `DELETE /v1/responses/{id}`,
 * `GET /v1/responses/{id}/input_items`. Errors are `{error: {message, type, param, code}}`.
 */
export interface FunctionCallScript {
  name: string;
  /** The arguments' JSON text; streamed as one `function_call_arguments.delta` per element of `chunks`. */
  arguments: string;
  chunks?: string[];
  callId?: string;
}

export interface ResponsesScript {
  /** An error status answers OpenAI's error body. */
  status?: number;
  errorMessage?: string;
  /** Raw JSON body to answer with instead of the generated one (not stored). */
  json?: unknown;
  /** A message item, first in `output`; streamed as one delta per element of `chunks`. Default text when no calls. */
  text?: string;
  chunks?: string[];
  /** A reasoning item's summary, before the message (streamed as summary deltas). */
  summary?: string[];
  functionCalls?: FunctionCallScript[];
  usage?: { input_tokens: number; output_tokens: number };
  model?: string;
  delayMs?: number;
  /** Destroy the connection after this many SSE events. */
  dropAfterEvents?: number;
}

type Json = Record<string, unknown>;

const DEFAULT_TEXT = 'Hello from the mock Responses API.';

export class MockResponses extends ScriptedMock<ResponsesScript> {
  /** The responses it made (and kept, as the API does unless `store: false`), by id. */
  readonly stored = new Map<string, { response: Json; input: Json[] }>();
  #n = 0;

  /** The base URL the official SDK (and the gateway's UPSTREAM_BASE_URL) takes. */
  get baseUrl(): string {
    return `${this.url}/v1`;
  }

  protected async answer(x: Exchange<ResponsesScript>): Promise<void> {
    const { got } = x;
    const path = got.path.split('?')[0] ?? '';
    const m = /^\/v1\/responses(?:\/([^/]+)(\/input_items)?)?$/.exec(path);
    if (!m) return this.#error(x, 404, `no route ${got.method} ${path}`);
    const [, id, items] = m;
    if (id === undefined) {
      if (got.method !== 'POST') return this.#error(x, 405, 'method not allowed');
      const s = x.script;
      if (s.status && s.status >= 400) return this.#error(x, s.status, s.errorMessage ?? 'mock error');
      if (!got.body || typeof got.body['model'] !== 'string') return this.#error(x, 400, 'model: required');
      if (s.json !== undefined) return this.#json(x, 200, s.json);
      const response = this.#response(s, got.body);
      if (got.body['store'] !== false) this.stored.set(response['id'] as string, { response, input: inputItems(got.body['input'], this.#n) });
      if (got.body['stream'] === true) return this.#stream(x, response);
      return this.#json(x, 200, response);
    }
    const kept = this.stored.get(id);
    if (!kept) return this.#error(x, 404, `No response found with id '${id}'.`);
    if (items !== undefined && got.method === 'GET') {
      const data = kept.input;
      return this.#json(x, 200, { object: 'list', data, first_id: data[0]?.['id'] ?? null, last_id: data.at(-1)?.['id'] ?? null, has_more: false });
    }
    if (items === undefined && got.method === 'GET') return this.#json(x, 200, kept.response);
    if (items === undefined && got.method === 'DELETE') {
      this.stored.delete(id);
      return this.#json(x, 200, { id, object: 'response', deleted: true });
    }
    return this.#error(x, 405, 'method not allowed');
  }

  #response(s: ResponsesScript, body: Json): Json {
    const n = ++this.#n;
    const output: Json[] = [];
    if (s.summary) output.push({ id: `rs_${n}`, type: 'reasoning', summary: s.summary.map((text) => ({ type: 'summary_text', text })) });
    const text = s.text ?? s.chunks?.join('') ?? (s.functionCalls ? undefined : DEFAULT_TEXT);
    if (text !== undefined) {
      output.push({ id: `msg_${n}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] });
    }
    for (const [i, fc] of (s.functionCalls ?? []).entries()) {
      output.push({ id: `fc_${n}_${i}`, type: 'function_call', status: 'completed', call_id: fc.callId ?? `call_${n}_${i}`, name: fc.name, arguments: fc.arguments });
    }
    const u = s.usage ?? { input_tokens: 12, output_tokens: 7 };
    return {
      id: `resp_mock${n}`,
      object: 'response',
      created_at: 1_764_000_000 + n,
      status: 'completed',
      error: null,
      incomplete_details: null,
      instructions: body['instructions'] ?? null,
      model: s.model ?? body['model'],
      output,
      parallel_tool_calls: true,
      previous_response_id: body['previous_response_id'] ?? null,
      store: body['store'] !== false,
      text: { format: { type: 'text' } },
      tool_choice: 'auto',
      tools: body['tools'] ?? [],
      usage: { input_tokens: u.input_tokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: u.output_tokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: u.input_tokens + u.output_tokens },
      metadata: {},
    };
  }

  /** The event sequence the API sends for a response: created, each item added, its deltas and done events, completed. */
  async #stream(x: Exchange<ResponsesScript>, response: Json): Promise<void> {
    const events: Json[] = [];
    const started = { ...response, status: 'in_progress', output: [], usage: null };
    events.push({ type: 'response.created', response: started }, { type: 'response.in_progress', response: started });
    const chunks = x.script.chunks;
    for (const [output_index, item] of (response['output'] as Json[]).entries()) {
      const item_id = item['id'];
      if (item['type'] === 'reasoning') {
        events.push({ type: 'response.output_item.added', output_index, item: { ...item, summary: [] } });
        for (const [summary_index, part] of (item['summary'] as Json[]).entries()) {
          const text = part['text'] as string;
          events.push({ type: 'response.reasoning_summary_part.added', item_id, output_index, summary_index, part: { type: 'summary_text', text: '' } });
          for (const delta of pieces(text)) events.push({ type: 'response.reasoning_summary_text.delta', item_id, output_index, summary_index, delta });
          events.push({ type: 'response.reasoning_summary_text.done', item_id, output_index, summary_index, text });
          events.push({ type: 'response.reasoning_summary_part.done', item_id, output_index, summary_index, part: { type: 'summary_text', text } });
        }
      } else if (item['type'] === 'message') {
        const part = (item['content'] as Json[])[0] as Json;
        const text = part['text'] as string;
        events.push({ type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress', content: [] } });
        events.push({ type: 'response.content_part.added', item_id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
        for (const delta of chunks ?? pieces(text)) events.push({ type: 'response.output_text.delta', item_id, output_index, content_index: 0, delta, logprobs: [] });
        events.push({ type: 'response.output_text.done', item_id, output_index, content_index: 0, text, logprobs: [] });
        events.push({ type: 'response.content_part.done', item_id, output_index, content_index: 0, part });
      } else {
        const args = item['arguments'] as string;
        const fc = x.script.functionCalls?.find((f) => f.name === item['name']);
        events.push({ type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress', arguments: '' } });
        for (const delta of fc?.chunks ?? pieces(args)) events.push({ type: 'response.function_call_arguments.delta', item_id, output_index, delta });
        events.push({ type: 'response.function_call_arguments.done', item_id, output_index, name: item['name'], arguments: args });
      }
      events.push({ type: 'response.output_item.done', output_index, item });
    }
    events.push({ type: 'response.completed', response });
    x.res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'x-request-id': 'req_mock' });
    const drop = x.script.dropAfterEvents;
    for (const [sequence_number, ev] of events.entries()) {
      if (drop !== undefined && sequence_number >= drop) {
        x.res.destroy();
        return;
      }
      x.res.write(`event: ${ev['type'] as string}\ndata: ${JSON.stringify({ ...ev, sequence_number })}\n\n`);
      await sleep(1);
    }
    x.finished = true;
    x.res.end();
  }

  #json(x: Exchange<ResponsesScript>, status: number, body: unknown): void {
    x.finished = true;
    x.res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_mock' });
    x.res.end(JSON.stringify(body));
  }

  #error(x: Exchange<ResponsesScript>, status: number, message: string): void {
    this.#json(x, status, { error: { message, type: status === 404 ? 'invalid_request_error' : status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: null } });
  }
}

/** A request's `input` (of the `n`th response) as the stored input items the API lists, each with an id of its own. */
function inputItems(input: unknown, n: number): Json[] {
  if (typeof input === 'string') return [{ id: `msg_in${n}_0`, type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: input }] }];
  if (!Array.isArray(input)) return [];
  return (input as Json[]).map((item, i) => ({ id: `item_in${n}_${i}`, ...item }));
}

/** A text in ~8-character deltas. */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 8) out.push(text.slice(i, i + 8));
  return out.length ? out : [''];
}
