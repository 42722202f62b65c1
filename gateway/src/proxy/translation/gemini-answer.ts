import type { Json } from './chat-translator.js';
import { idNonce, toolCallId } from './gemini-ids.js';

/**
 * Gemini's finish reasons as OpenAI's. Output withheld by a filter (safety, recitation, blocklist, prohibited content,
 * personal data, an unsupported language, an escalation rule) is `content_filter`; a function-call or response
 * malfunction and any reason not listed are `stop` (the answer ended, and OpenAI has no word for why): the answer's
 * text, if any, is what the agent gets.
 */
const FINISH_REASONS: Readonly<Record<string, string>> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  LANGUAGE: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  IMAGE_PROHIBITED_CONTENT: 'content_filter',
  IMAGE_RECITATION: 'content_filter',
  ESCALATION: 'content_filter',
};

/** OpenAI's finish_reason for Gemini's, `tool_calls` when a normally ended answer holds function calls. */
export function finishReason(reason: unknown, hasToolCalls: boolean): string {
  const mapped = (typeof reason === 'string' ? FINISH_REASONS[reason] : undefined) ?? 'stop';
  return mapped === 'stop' && hasToolCalls ? 'tool_calls' : mapped;
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/**
 * `usageMetadata` as OpenAI's usage. Thinking tokens are output tokens, billed as such: counted in completion_tokens
 * and told apart in completion_tokens_details.reasoning_tokens, as OpenAI counts reasoning. Tokens of built-in tools'
 * results are prompt tokens. Cached tokens are part of the prompt on both sides.
 */
export function usageOf(metadata: unknown): Json | null {
  if (metadata === null || typeof metadata !== 'object') return null;
  const u = metadata as Json;
  const prompt = count(u['promptTokenCount']) + count(u['toolUsePromptTokenCount']);
  const reasoning = count(u['thoughtsTokenCount']);
  const completion = count(u['candidatesTokenCount']) + reasoning;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: count(u['cachedContentTokenCount']) },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
}

export function firstCandidate(body: Json): Json | null {
  const candidates = body['candidates'];
  if (!Array.isArray(candidates)) return null;
  const c: unknown = candidates[0];
  return c !== null && typeof c === 'object' ? (c as Json) : null;
}

export function partsOf(candidate: Json | null): readonly unknown[] {
  const content = candidate?.['content'];
  const parts = content !== null && typeof content === 'object' ? (content as Json)['parts'] : undefined;
  return Array.isArray(parts) ? parts : [];
}

/** A function call part as an OpenAI tool call (arguments as the JSON text OpenAI sends). */
export function toolCall(call: Json, signature: unknown, nonce: string, index: number): Json {
  const name = typeof call['name'] === 'string' ? call['name'] : '';
  const args = call['args'];
  return {
    id: toolCallId(nonce, index, signature),
    type: 'function',
    function: { name, arguments: args !== null && typeof args === 'object' ? JSON.stringify(args) : '{}' },
  };
}

export function responseModel(body: Json, model: string): string {
  const version = body['modelVersion'];
  return typeof version === 'string' && version !== '' ? version : model;
}

export function completionId(body: Json, nonce: string): string {
  const id = body['responseId'];
  return `chatcmpl-${typeof id === 'string' && id !== '' ? id : nonce}`;
}

/**
 * A whole generateContent answer as a `chat.completion`: the first candidate's text parts joined (thought summaries
 * left out), its function calls as tool calls. A prompt Gemini blocked (`promptFeedback.blockReason`, no candidate) is
 * an empty answer ended by `content_filter`, as OpenAI ends an answer its filter withheld.
 */
export function geminiAnswer(body: Json, model: string): Json {
  const nonce = idNonce();
  const candidate = firstCandidate(body);
  let text: string | null = null;
  let calls: Json[] | null = null;
  for (const part of partsOf(candidate)) {
    if (part === null || typeof part !== 'object') continue;
    const p = part as Json;
    if (typeof p['text'] === 'string') {
      if (p['thought'] !== true) text = text === null ? p['text'] : text + p['text'];
    } else if (p['functionCall'] !== null && typeof p['functionCall'] === 'object') {
      (calls ??= []).push(toolCall(p['functionCall'] as Json, p['thoughtSignature'], nonce, calls.length));
    }
  }
  const message: Json = { role: 'assistant', content: text ?? (calls ? null : ''), refusal: null };
  if (calls) message['tool_calls'] = calls;
  const reason = candidate ? finishReason(candidate['finishReason'], calls !== null) : blockedReason(body);
  const out: Json = {
    id: completionId(body, nonce),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: responseModel(body, model),
    choices: [{ index: 0, message, logprobs: null, finish_reason: reason }],
  };
  const usage = usageOf(body['usageMetadata']);
  if (usage) out['usage'] = usage;
  return out;
}

/** The finish of an answer with no candidate: `content_filter` when the prompt was blocked, else `stop`. */
export function blockedReason(body: Json): string {
  const feedback = body['promptFeedback'];
  const blocked = feedback !== null && typeof feedback === 'object' && (feedback as Json)['blockReason'] != null;
  return blocked ? 'content_filter' : 'stop';
}
