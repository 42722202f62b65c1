import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A mock OpenAI-compatible provider on loopback, speaking the real wire format: chat completions (JSON and SSE),
 * legacy completions, embeddings, models. Tests script the next answers (status, content, chunking, delays,
 * dropped connections) and read what the mock received.
 */
export interface Script {
  /** The answer's status; a 204 on /models comes without a body. */
  status?: number;
  /** Raw JSON body to answer with (overrides the generated one). */
  json?: unknown;
  /** Assistant text; streamed in `chunks` when the request streams (default: split in ~8-char pieces). */
  content?: string;
  chunks?: string[];
  /** Tool calls of the answer; streamed as one `tool_calls` delta per element of `chunks` (default: the arguments whole). */
  toolCalls?: { name: string; arguments: string; chunks?: string[] }[];
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Delay before the status line, ms. */
  delayMs?: number;
  /** Delay between stream chunks, ms. */
  chunkDelayMs?: number;
  /** Destroy the connection after this many content chunks. */
  dropAfterChunks?: number;
}

export interface Received {
  method: string;
  /** The path below the API's root (`/chat/completions`), whatever the provider's prefix. */
  path: string;
  /** The request target as sent, query included. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown> | null;
}

export class MockUpstream {
  readonly received: Received[] = [];
  /** Connections the client closed before the answer was complete (e.g. an aborted stream). */
  clientAborts = 0;
  #scripts: Script[] = [];
  #default: Script = {};
  #server: Server | null = null;
  url = '';

  /** Scripts the next answers, in order; after they are used up, the default answers. */
  next(...scripts: Script[]): this {
    this.#scripts.push(...scripts);
    return this;
  }

  setDefault(s: Script): this {
    this.#default = s;
    return this;
  }

  reset(): void {
    this.received.length = 0;
    this.#scripts = [];
    this.#default = {};
    this.clientAborts = 0;
  }

  async start(): Promise<this> {
    this.#server = createServer((req, res) => void this.#handle(req, res));
    this.#server.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => this.#server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise((r) => this.#server?.close(r));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: Record<string, unknown> | null;
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
    } catch {
      body = null;
    }
    // Azure OpenAI's deployment paths (`/openai/deployments/{d}/chat/completions?api-version=…`) answer as OpenAI's.
    const url = req.url ?? '';
    const path = url.split('?')[0]!.replace(/^\/v1/, '').replace(/^\/openai\/deployments\/[^/]+/, '');
    this.received.push({ method: req.method ?? '', path, url, headers: req.headers, body });
    const s = this.#scripts.shift() ?? this.#default;
    let finished = false;
    res.on('close', () => {
      if (!finished) this.clientAborts++;
    });
    if (s.delayMs) await sleep(s.delayMs);
    if (s.json !== undefined || (s.status && s.status >= 400)) {
      finished = true;
      return json(res, s.status ?? 200, s.json ?? { error: { message: 'mock error', type: 'server_error' } });
    }
    const model = typeof body?.['model'] === 'string' ? body['model'] : 'mock-model';
    const usage = { prompt_tokens: s.usage?.prompt_tokens ?? 12, completion_tokens: s.usage?.completion_tokens ?? 7 };
    const fullUsage = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    const content = s.content ?? (s.chunks ? s.chunks.join('') : 'Hello from the mock provider.');
    switch (path) {
      case '/models':
        finished = true;
        if (s.status === 204) {
          res.writeHead(204, { 'x-request-id': 'req-mock' });
          return void res.end();
        }
        return json(res, 200, { object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model', created: 1700000000, owned_by: 'mock' }] });
      case '/embeddings': {
        const inputs = Array.isArray(body?.['input']) ? (body!['input'] as unknown[]) : [body?.['input']];
        finished = true;
        return json(res, 200, { object: 'list', model, data: inputs.map((_, i) => ({ object: 'embedding', index: i, embedding: [0.1, -0.2, 0.3] })), usage: { prompt_tokens: usage.prompt_tokens, total_tokens: usage.prompt_tokens } });
      }
      case '/chat/completions':
      case '/completions': {
        const chat = path === '/chat/completions';
        if (body?.['stream'] === true) {
          const includeUsage = (body['stream_options'] as Record<string, unknown> | undefined)?.['include_usage'] === true;
          finished = await this.#stream(res, s, chat, model, content, includeUsage ? fullUsage : null);
          return;
        }
        finished = true;
        const message: Record<string, unknown> = { role: 'assistant', content };
        if (s.toolCalls) {
          message['content'] = null;
          message['tool_calls'] = s.toolCalls.map((t, i) => ({ id: `call_${i}`, type: 'function', function: { name: t.name, arguments: t.arguments } }));
        }
        return json(res, s.status ?? 200, {
          id: 'chatcmpl-mock',
          object: chat ? 'chat.completion' : 'text_completion',
          created: 1700000000,
          model,
          choices: [chat ? { index: 0, message, finish_reason: s.toolCalls ? 'tool_calls' : 'stop' } : { index: 0, text: content, finish_reason: 'stop' }],
          usage: fullUsage,
        });
      }
      default:
        finished = true;
        return json(res, 404, { error: { message: `no route ${path}`, type: 'invalid_request_error' } });
    }
  }

  async #stream(res: ServerResponse, s: Script, chat: boolean, model: string, content: string, usage: object | null): Promise<boolean> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': 'req-mock-stream' });
    const pieces = s.chunks ?? content.match(/[\s\S]{1,8}/g) ?? [];
    const base = { id: 'chatcmpl-mock', object: chat ? 'chat.completion.chunk' : 'text_completion', created: 1700000000, model };
    const closed = new Promise<void>((r) => res.once('close', r));
    let flushed: Promise<unknown> = Promise.resolve();
    const send = (obj: unknown) => {
      flushed = Promise.race([new Promise<void>((r) => res.write(`data: ${JSON.stringify(obj)}\n\n`, () => r())), closed]);
    };
    if (chat) send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    for (let i = 0; i < pieces.length; i++) {
      if (s.dropAfterChunks !== undefined && i === s.dropAfterChunks) {
        // destroy() discards writes still queued in the stream: the chunks before the drop must reach the client.
        await flushed;
        res.socket?.destroy();
        return true;
      }
      if (res.destroyed) return false;
      send({ ...base, choices: [chat ? { index: 0, delta: { content: pieces[i] }, finish_reason: null } : { index: 0, text: pieces[i], finish_reason: null }] });
      if (s.chunkDelayMs) await sleep(s.chunkDelayMs);
    }
    for (const [index, tc] of (chat ? (s.toolCalls ?? []) : []).entries()) {
      send({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name: tc.name, arguments: '' } }] }, finish_reason: null }] });
      for (const piece of tc.chunks ?? [tc.arguments]) send({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null }] });
    }
    const finish = s.toolCalls ? 'tool_calls' : 'stop';
    send({ ...base, choices: [chat ? { index: 0, delta: {}, finish_reason: finish } : { index: 0, text: '', finish_reason: 'stop' }] });
    if (usage) send({ ...base, choices: [], usage });
    res.end('data: [DONE]\n\n');
    return true;
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'x-request-id': 'req-mock' });
  res.end(text);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
