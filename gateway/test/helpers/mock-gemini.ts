import type { IncomingMessage, ServerResponse } from 'node:http';
import { ScriptedMock, sleep, type Exchange, type ScriptedReceived } from './scripted-mock.js';
import { geminiGenerateProblem } from './provider-request-schemas.js';

/**
 * A mock Gemini API (generativelanguage) on loopback, speaking the real wire format under `/v1` and `/v1beta`:
 * `POST /{version}/models/{model}:generateContent` (a GenerateContentResponse), `:streamGenerateContent?alt=sse` (one
 * `data: <GenerateContentResponse>\r\n\r\n` frame per chunk; without `alt=sse`, the API's JSON-array stream),
 * `:countTokens`, `:embedContent`, `:batchEmbedContents`, and errors as `{error: {code, message, status}}`. Tests
 * script the next answers and read what it received.
 */
export interface FunctionCallScript {
  name: string;
  args?: Record<string, unknown>;
}

export interface GeminiUsage {
  promptTokenCount: number;
  candidatesTokenCount: number;
  /** Default: prompt + candidates (+ thoughts). */
  totalTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

export interface GeminiScript {
  /** An error status answers `{error: {code, message, status}}`, the status name following the code unless given. */
  status?: number;
  errorStatus?: string;
  errorMessage?: string;
  /** Raw JSON body to answer with (overrides the generated one, streaming requests included). */
  json?: unknown;
  /** Extra response headers (e.g. `retry-after`). */
  headers?: Record<string, string>;
  /**
   * A text part, first in `content.parts`; streamed as one chunk per element of `chunks` (default: ~8-character
   * pieces). There is a text part when `text` or `chunks` is given, or when there are no function calls.
   */
  text?: string;
  chunks?: string[];
  /** functionCall parts, after the text part; a stream sends them whole, in its last chunk. */
  functionCalls?: FunctionCallScript[];
  /** Default `STOP` (the API's finish reason for function calls too). */
  finishReason?: string;
  /** Default `{promptTokenCount: 12, candidatesTokenCount: 7, totalTokenCount: 19}`; countTokens answers its prompt count. */
  usage?: GeminiUsage;
  /** Default `[0.1, 0.2, 0.3]`: embedContent's values, and each of batchEmbedContents' unless `embeddings` is given. */
  embedding?: number[];
  embeddings?: number[][];
  /** Delay before the status line, ms. */
  delayMs?: number;
  /** Delay after each streamed chunk, ms. */
  chunkDelayMs?: number;
  /** Destroy the connection after this many streamed chunks (0: right after the 200 headers). */
  dropAfterChunks?: number;
  /** After this many chunks, send `{error: {code, message, status}}` as the next chunk and end the stream. */
  streamError?: { afterChunks: number; code?: number; message?: string; status?: string };
}

export type GeminiReceived = ScriptedReceived;

export interface MockGeminiOptions {
  /**
   * As the API does (default true): a request without a key (`x-goog-api-key`, `?key=` or `authorization`) is a 403,
   * a body that is not JSON or lacks `contents` (generateContent, streamGenerateContent, countTokens unless it carries
   * `generateContentRequest`), `content` (embedContent) or `requests` (batchEmbedContents) is a 400.
   */
  checkRequests?: boolean;
  /**
   * Also check a generateContent (or stream) body against the API's documented request (provider-request-schemas.ts):
   * an unknown field, a part of the wrong shape, a function response not right after its call, is a 400 as the API
   * answers it.
   */
  schema?: boolean;
}

const DEFAULT_TEXT = 'Hello from the mock Gemini provider.';
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};
const ROUTE = /^\/(v1|v1beta)\/((?:models|tunedModels)\/[^/:]+):(generateContent|streamGenerateContent|countTokens|embedContent|batchEmbedContents)$/;

export class MockGemini extends ScriptedMock<GeminiScript> {
  #responses = 0;
  readonly #checkRequests: boolean;
  readonly #schema: boolean;

  constructor(options: MockGeminiOptions = {}) {
    super();
    this.#checkRequests = options.checkRequests ?? true;
    this.#schema = options.schema ?? false;
  }

  protected async answer(x: Exchange<GeminiScript>): Promise<void> {
    const { req, res, script: s, got } = x;
    const { method, path, body } = got;
    const headers = { ...s.headers };
    if (s.json !== undefined) {
      x.finished = true;
      return json(res, s.status ?? 200, s.json, headers);
    }
    if (s.status && s.status >= 400) {
      x.finished = true;
      return error(res, s.status, s.errorStatus, s.errorMessage ?? 'mock error', headers);
    }
    const url = new URL(path, 'http://mock');
    const route = ROUTE.exec(url.pathname);
    if (method !== 'POST' || !route) {
      x.finished = true;
      return error(res, 404, undefined, `Not found: ${method} ${url.pathname}`, headers);
    }
    const [, , modelName, rpc] = route as unknown as [string, string, string, string];
    const generates = rpc === 'generateContent' || rpc === 'streamGenerateContent';
    const schema = (b: Record<string, unknown>) => {
      const message = geminiGenerateProblem(b);
      return message === null ? null : { status: 400, message };
    };
    const problem = this.#checkRequests ? (checkRequest(req, url, body, rpc) ?? (this.#schema && generates ? schema(body!) : null)) : null;
    if (problem) {
      x.finished = true;
      return error(res, problem.status, undefined, problem.message, headers);
    }
    const usage = usageOf(s);
    if (rpc !== 'streamGenerateContent') x.finished = true;
    switch (rpc) {
      case 'countTokens':
        return json(res, 200, { totalTokens: usage.promptTokenCount }, headers);
      case 'embedContent':
        return json(res, 200, { embedding: { values: s.embedding ?? [0.1, 0.2, 0.3] } }, headers);
      case 'batchEmbedContents': {
        const n = Array.isArray(body?.['requests']) ? body['requests'].length : 1;
        const embeddings = s.embeddings ?? Array.from({ length: n }, () => s.embedding ?? [0.1, 0.2, 0.3]);
        return json(res, 200, { embeddings: embeddings.map((values) => ({ values })) }, headers);
      }
    }
    const meta: ResponseMeta = { modelVersion: modelName.replace(/^[^/]+\//, ''), responseId: `mock-response-${++this.#responses}` };
    if (rpc === 'generateContent') return json(res, 200, wholeResponse(s, usage, meta), headers);
    x.finished = await stream(res, s, streamChunks(s, usage, meta), url.searchParams.get('alt') === 'sse', headers);
  }
}

interface ResponseMeta {
  modelVersion: string;
  responseId: string;
}

type Part = { text: string } | { functionCall: { name: string; args: Record<string, unknown> } };

function usageOf(s: GeminiScript): Required<Pick<GeminiUsage, 'promptTokenCount' | 'candidatesTokenCount' | 'totalTokenCount'>> & GeminiUsage {
  const u = s.usage ?? { promptTokenCount: 12, candidatesTokenCount: 7 };
  return { ...u, totalTokenCount: u.totalTokenCount ?? u.promptTokenCount + u.candidatesTokenCount + (u.thoughtsTokenCount ?? 0) };
}

function hasText(s: GeminiScript): boolean {
  return s.text !== undefined || s.chunks !== undefined || !s.functionCalls?.length;
}

function textOf(s: GeminiScript): string {
  return s.text ?? (s.chunks ? s.chunks.join('') : DEFAULT_TEXT);
}

function callParts(s: GeminiScript): Part[] {
  return (s.functionCalls ?? []).map((f) => ({ functionCall: { name: f.name, args: f.args ?? {} } }));
}

function response(parts: Part[], finishReason: string | undefined, usage: GeminiUsage | undefined, meta: ResponseMeta): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { role: 'model', parts } };
  if (finishReason) candidate['finishReason'] = finishReason;
  candidate['index'] = 0;
  const out: Record<string, unknown> = { candidates: [candidate] };
  if (usage) out['usageMetadata'] = usage;
  return { ...out, modelVersion: meta.modelVersion, responseId: meta.responseId };
}

function wholeResponse(s: GeminiScript, usage: GeminiUsage, meta: ResponseMeta): Record<string, unknown> {
  const parts: Part[] = hasText(s) ? [{ text: textOf(s) }] : [];
  return response([...parts, ...callParts(s)], s.finishReason ?? 'STOP', usage, meta);
}

/** One response per text piece; the function calls, finish reason and usage ride on the last one. */
function streamChunks(s: GeminiScript, usage: GeminiUsage, meta: ResponseMeta): Record<string, unknown>[] {
  const texts = hasText(s) ? (s.chunks ?? pieces(textOf(s))) : [];
  const calls = callParts(s);
  const parts: Part[][] = texts.map((text) => [{ text }]);
  if (calls.length || parts.length === 0) parts.push(calls);
  else parts[parts.length - 1]!.push(...calls);
  return parts.map((p, i) => (i === parts.length - 1 ? response(p, s.finishReason ?? 'STOP', usage, meta) : response(p, undefined, undefined, meta)));
}

/**
 * With `alt=sse`, each chunk is `data: JSON\r\n\r\n` (the API's own delimiter); without it, the API's JSON array, one
 * element per chunk. Resolves whether the answer was complete (false: the client went away first).
 */
async function stream(res: ServerResponse, s: GeminiScript, chunks: unknown[], sse: boolean, headers: Record<string, string>): Promise<boolean> {
  res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json; charset=UTF-8', ...headers });
  res.flushHeaders();
  const frame = (data: unknown, i: number): string => (sse ? `data: ${JSON.stringify(data)}\r\n\r\n` : `${i === 0 ? '[' : ',\r\n'}${JSON.stringify(data)}`);
  const closed = new Promise<void>((r) => res.once('close', r));
  let flushed: Promise<unknown> = Promise.resolve();
  for (let i = 0; i <= chunks.length; i++) {
    if (s.dropAfterChunks === i) {
      // destroy() discards writes still queued in the stream: the chunks before the drop must reach the client.
      await flushed;
      res.socket?.destroy();
      return true;
    }
    if (s.streamError?.afterChunks === i) {
      const e = s.streamError;
      const code = e.code ?? 500;
      res.end(frame({ error: { code, message: e.message ?? 'An internal error has occurred.', status: e.status ?? STATUS_NAMES[code] ?? 'UNKNOWN' } }, i) + (sse ? '' : ']'));
      return true;
    }
    if (i === chunks.length) break;
    if (res.destroyed) return false;
    flushed = Promise.race([new Promise<void>((r) => res.write(frame(chunks[i], i), () => r())), closed]);
    if (s.chunkDelayMs) await sleep(s.chunkDelayMs);
  }
  res.end(sse ? '' : chunks.length ? ']' : '[]');
  return true;
}

function checkRequest(req: IncomingMessage, url: URL, body: Record<string, unknown> | null, rpc: string): { status: number; message: string } | null {
  if (!req.headers['x-goog-api-key'] && !url.searchParams.get('key') && !req.headers['authorization']) {
    return { status: 403, message: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API." };
  }
  if (!body) return { status: 400, message: 'Invalid JSON payload received.' };
  if (rpc === 'embedContent') return body['content'] ? null : { status: 400, message: '* EmbedContentRequest.content: content is not specified' };
  if (rpc === 'batchEmbedContents') return Array.isArray(body['requests']) ? null : { status: 400, message: '* BatchEmbedContentsRequest.requests: requests is not specified' };
  if (rpc === 'countTokens' && body['generateContentRequest']) return null;
  if (!Array.isArray(body['contents']) || body['contents'].length === 0) return { status: 400, message: '* GenerateContentRequest.contents: contents is not specified' };
  return null;
}

function pieces(text: string): string[] {
  return text.match(/[\s\S]{1,8}/g) ?? [];
}

function error(res: ServerResponse, code: number, status: string | undefined, message: string, headers: Record<string, string>): void {
  json(res, code, { error: { code, message, status: status ?? STATUS_NAMES[code] ?? 'UNKNOWN' } }, headers);
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

