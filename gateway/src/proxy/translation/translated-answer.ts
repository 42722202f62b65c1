import { GatewayError } from '../../errors.js';
import { SseReader } from '../answer/sse-reader.js';
import type { AnswerBody, UpstreamResponse } from '../upstream/upstream-client.js';
import type { ChatTranslator, Json, StreamTranslation } from './chat-translator.js';

/** What a translated answer needs beside the provider's: the model asked for, the stream, and the size cap. */
export interface AnswerTranslation {
  readonly translator: ChatTranslator;
  /** The model the target was asked for (the answer names it if the provider does not). */
  readonly model: string;
  /** The agent asked for a stream. */
  readonly stream: boolean;
  /** The agent asked for a stream's usage chunk (`stream_options.include_usage`). */
  readonly includeUsage: boolean;
  /** The largest whole answer (or error body) read, bytes: past it the call fails as an untranslated one does. */
  readonly maxBytes: number;
}

const SSE_TYPE = /^text\/event-stream\b/i;
const DONE = Buffer.from('data: [DONE]\n\n');

/**
 * The provider's answer as OpenAI's, for the answer stages to read as any chat completion: a 2xx stream event by
 * event, a 2xx whole answer once read, an error as OpenAI's error shape and status. The provider's own headers that
 * describe the bytes are replaced; the others (request ids, rate limits) are kept. An error's body is read (capped)
 * before its head is relayed: its OpenAI status can differ from the provider's (Gemini answers a bad key with 400,
 * which OpenAI's SDK must see as a 401).
 */
export async function translateAnswer(up: UpstreamResponse, t: AnswerTranslation): Promise<UpstreamResponse> {
  const headers = { ...up.headers, 'content-type': 'application/json' };
  if (up.status < 200 || up.status >= 300) {
    const translated = t.translator.error(up.status, parsedOrNull(await readCapped(up.body, t.maxBytes)));
    const bytes = Buffer.from(JSON.stringify(translated.body));
    return { status: translated.status, headers, body: new TranslatedBody(up.body, () => once(bytes)) };
  }
  if (t.stream && SSE_TYPE.test(up.headers['content-type'] ?? '')) {
    const translation = t.translator.stream(t.model, t.includeUsage);
    return { status: up.status, headers: { ...headers, 'content-type': 'text/event-stream; charset=utf-8' }, body: new TranslatedBody(up.body, (raw) => streamChunks(raw, translation)) };
  }
  return { status: up.status, headers, body: new TranslatedBody(up.body, (raw) => wholeAnswer(raw, t)) };
}

/** The translation's bytes over the provider's body: destroying it stops the provider's request. */
class TranslatedBody implements AnswerBody {
  constructor(
    private readonly raw: AnswerBody,
    private readonly produce: (raw: AnswerBody) => AsyncGenerator<Buffer>,
  ) {}

  destroy(reason?: Error): void {
    this.raw.destroy(reason);
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    return this.produce(this.raw);
  }
}

async function* once(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes;
}

async function* wholeAnswer(raw: AnswerBody, t: AnswerTranslation): AsyncGenerator<Buffer> {
  const bytes = await readCapped(raw, t.maxBytes);
  const answer = parsedOrNull(bytes);
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) throw new GatewayError('upstream_error', `upstream (${t.translator.provider}) answered with invalid JSON`);
  yield Buffer.from(JSON.stringify(t.translator.answer(answer as Json, t.model)));
}

/**
 * The provider's SSE events as OpenAI `chat.completion.chunk` events, then `[DONE]`: one write per chunk of the
 * provider's bytes (what it made of them), so a chunk's events reach the agent as soon as they came.
 */
async function* streamChunks(raw: AnswerBody, translation: StreamTranslation): AsyncGenerator<Buffer> {
  const reader = new SseReader();
  for await (const chunk of raw) {
    const out = translated(reader.push(chunk), translation);
    if (out !== null) yield out;
  }
  const last = translated(reader.end(), translation);
  let tail = '';
  for (const c of translation.end()) tail += `data: ${JSON.stringify(c)}\n\n`;
  yield last === null ? Buffer.concat([Buffer.from(tail), DONE]) : Buffer.concat([last, Buffer.from(tail), DONE]);
}

function translated(events: readonly { data: string; other: string[] }[], translation: StreamTranslation): Buffer | null {
  let text = '';
  for (const e of events) {
    // Comments (keep-alives) and retry hints carry no data: nothing of them reaches the agent.
    if (e.data === '') continue;
    let data: unknown;
    try {
      data = JSON.parse(e.data);
    } catch {
      throw new GatewayError('upstream_error', 'upstream stream event is not JSON');
    }
    if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new GatewayError('upstream_error', 'upstream stream event is not a JSON object');
    for (const c of translation.event(eventName(e.other), data as Json)) text += `data: ${JSON.stringify(c)}\n\n`;
  }
  return text === '' ? null : Buffer.from(text);
}

function eventName(other: readonly string[]): string | null {
  for (const line of other) if (line.startsWith('event: ')) return line.slice(7);
  return null;
}

async function readCapped(body: AnswerBody, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      body.destroy(new Error('answer too large'));
      throw new GatewayError('upstream_error', 'upstream answer is larger than the gateway accepts');
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}

function parsedOrNull(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
}
