import type { Json } from './chat-translator.js';

/**
 * Anthropic's `stop_reason` as OpenAI's `finish_reason`. `pause_turn` (a long server-side turn paused, to be sent
 * back to go on) and `model_context_window_exceeded` both mean the answer stopped before it was done: `length`, the
 * one OpenAI reason that says so.
 */
const FINISH: Readonly<Record<string, string>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  pause_turn: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

export function finishReason(stopReason: unknown): string {
  return (typeof stopReason === 'string' ? FINISH[stopReason] : undefined) ?? 'stop';
}

/** Token counts as Anthropic splits them: input outside the cache, cache reads, cache writes, output, thinking. */
export interface TokenCounts {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  /** Output tokens spent thinking, when Anthropic says. */
  thinking: number | null;
}

/**
 * Reads an Anthropic `usage` object into `into`. A field absent leaves the count as it was: a stream's message_delta
 * repeats only some of what message_start said.
 */
export function readUsage(u: unknown, into: TokenCounts, withOutput: boolean): void {
  if (u === null || typeof u !== 'object') return;
  const usage = u as Json;
  if (typeof usage['input_tokens'] === 'number') into.input = usage['input_tokens'];
  if (typeof usage['cache_read_input_tokens'] === 'number') into.cacheRead = usage['cache_read_input_tokens'];
  if (typeof usage['cache_creation_input_tokens'] === 'number') into.cacheWrite = usage['cache_creation_input_tokens'];
  if (!withOutput) return;
  if (typeof usage['output_tokens'] === 'number') into.output = usage['output_tokens'];
  const details = usage['output_tokens_details'] as Json | null | undefined;
  if (details && typeof details['thinking_tokens'] === 'number') into.thinking = details['thinking_tokens'];
}

/**
 * OpenAI's `usage`: its prompt counts every input token, cached or not (Anthropic's `input_tokens` leaves out cache
 * reads and writes), with the cache reads as `cached_tokens`; thinking tokens are reasoning tokens.
 */
export function openaiUsage(t: TokenCounts): Json {
  const prompt = t.input + t.cacheRead + t.cacheWrite;
  const usage: Json = { prompt_tokens: prompt, completion_tokens: t.output, total_tokens: prompt + t.output, prompt_tokens_details: { cached_tokens: t.cacheRead } };
  if (t.thinking !== null) usage['completion_tokens_details'] = { reasoning_tokens: t.thinking };
  return usage;
}

/** The model that answered (Anthropic names the dated snapshot), else the one asked for. */
export function answeringModel(v: unknown, asked: string): string {
  return typeof v === 'string' && v !== '' ? v : asked;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * A whole Messages API answer as a `chat.completion`: its text blocks joined as the message's content, its
 * `tool_use` blocks as tool calls (ids kept, so the agent's tool results find their calls), thinking and server-tool
 * blocks left out (OpenAI's message has no place for them; thinking counts in the usage).
 */
export function anthropicAnswer(body: Json, model: string): Json {
  let text = '';
  let calls: Json[] | null = null;
  const content = body['content'];
  if (Array.isArray(content)) {
    for (const block of content as unknown[]) {
      if (block === null || typeof block !== 'object') continue;
      const b = block as Json;
      if (b['type'] === 'text' && typeof b['text'] === 'string') text += b['text'];
      else if (b['type'] === 'tool_use') {
        const input = b['input'];
        (calls ??= []).push({
          id: b['id'],
          type: 'function',
          function: { name: b['name'], arguments: input === undefined ? '{}' : JSON.stringify(input) },
        });
      }
    }
  }
  const message: Json = { role: 'assistant', content: text === '' && calls !== null ? null : text, refusal: null };
  if (calls !== null) message['tool_calls'] = calls;
  const counts: TokenCounts = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, thinking: null };
  readUsage(body['usage'], counts, true);
  return {
    id: typeof body['id'] === 'string' ? body['id'] : `chatcmpl-${nowSeconds()}`,
    object: 'chat.completion',
    created: nowSeconds(),
    model: answeringModel(body['model'], model),
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(body['stop_reason']) }],
    usage: openaiUsage(counts),
  };
}
