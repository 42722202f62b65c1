import { walkText } from '../../policy/input-text.js';
import type { Usage } from '../proxy-context.js';
import type { AnswerFormat, AnswerVisit, DeltaVisit, ErrorBody } from './answer-format.js';

type Json = Record<string, unknown>;

const NONE: readonly number[] = [];
const NO_NAMES: readonly string[] = [];

/** The name of a `tool_use` block (a tool the client runs; `server_tool_use` is run by Anthropic itself). */
function toolUseName(block: unknown, names: string[] | null): string[] | null {
  if (block === null || typeof block !== 'object') return names;
  const b = block as Json;
  if (b['type'] === 'tool_use' && typeof b['name'] === 'string') (names ??= []).push(b['name']);
  return names;
}

/** Our error type, as the Anthropic error type an SDK maps to its own classes. */
const ERROR_TYPES: Readonly<Record<string, string>> = {
  invalid_request: 'invalid_request_error',
  authentication_error: 'authentication_error',
  permission_denied: 'permission_error',
  svc_policy_violation: 'permission_error',
  not_found: 'not_found_error',
  payload_too_large: 'request_too_large',
  rate_limit_exceeded: 'rate_limit_error',
  upstream_unavailable: 'overloaded_error',
};

/**
 * Anthropic's error shape (`{type: 'error', error: {type, message}}`, a whole answer's body or a stream's `error`
 * event), with our envelope's fields beside it (code, rule, trace id; verdict and policy of a block) for who reads them.
 */
export function anthropicError(body: ErrorBody): object {
  return { type: 'error', ...body, error: { ...body.error, type: ERROR_TYPES[body.error.type] ?? 'api_error' } };
}

/**
 * Anthropic's Messages API: a whole answer's `content` blocks (a text block's `text`, every string of a `tool_use`
 * block's `input`); a stream's `content_block_delta` events, one channel per content block (`text_delta` text and
 * `input_json_delta` JSON, redacted as they arrive), ended by the block's `content_block_stop`, which carries no text:
 * what a block held back goes out in a delta event of its own just before it. Usage comes in parts: input tokens in
 * `message_start`, output tokens in `message_delta`.
 */
export const ANTHROPIC_MESSAGES: AnswerFormat = {
  visitAnswer(answer: Json, visit: AnswerVisit): void {
    const content = answer['content'];
    if (!Array.isArray(content)) return;
    for (const block of content as Json[]) {
      if (!block || typeof block !== 'object') continue;
      if (typeof block['text'] === 'string') block['text'] = visit(block['text']);
      const input = block['input'];
      if (input !== null && typeof input === 'object') walkText(input, visit);
    }
  },
  visitEvent(event: Json, visit: DeltaVisit): void {
    if (event['type'] !== 'content_block_delta') return;
    const delta = event['delta'] as Json | undefined;
    const index = typeof event['index'] === 'number' ? event['index'] : 0;
    if (!delta || typeof delta !== 'object') return;
    if (typeof delta['text'] === 'string') delta['text'] = visit(index, delta['text']);
    else if (typeof delta['partial_json'] === 'string') delta['partial_json'] = visit(index, delta['partial_json']);
  },
  endedChannels(event: Json): readonly number[] {
    return event['type'] === 'content_block_stop' && typeof event['index'] === 'number' ? [event['index']] : NONE;
  },
  appendDelta(): boolean {
    return false;
  },
  deltaEvent(like: Json, channel: number, text: string): Json {
    const kind = (like['delta'] as Json | undefined)?.['type'];
    const delta = kind === 'input_json_delta' ? { type: 'input_json_delta', partial_json: text } : { type: 'text_delta', text };
    return { type: 'content_block_delta', index: channel, delta };
  },
  toolNames(body: Json): readonly string[] {
    // A stream opens each block with `content_block_start`; a whole answer lists them in `content`.
    if (body['type'] === 'content_block_start') return toolUseName(body['content_block'], null) ?? NO_NAMES;
    const content = body['content'];
    if (!Array.isArray(content)) return NO_NAMES;
    let names: string[] | null = null;
    for (const block of content) names = toolUseName(block, names);
    return names ?? NO_NAMES;
  },
  eventName(event: Json): string | null {
    return typeof event['type'] === 'string' ? event['type'] : null;
  },
  streamError(body: ErrorBody): { name: string; data: unknown } {
    return { name: 'error', data: anthropicError(body) };
  },
  usage(body: Json): Partial<Usage> | null {
    const type = body['type'];
    const u = (type === 'message_start' ? (body['message'] as Json | undefined)?.['usage'] : body['usage']) as Json | undefined;
    if (!u || typeof u !== 'object') return null;
    const out: Partial<Usage> = {};
    // message_start counts one output token so far; the real count comes in message_delta.
    if (typeof u['input_tokens'] === 'number') out.prompt_tokens = u['input_tokens'] + cached(u);
    if (typeof u['output_tokens'] === 'number' && type !== 'message_start') out.completion_tokens = u['output_tokens'];
    return out;
  },
  onlyUsage: () => false,
  doneData: null,
};

/** Cache reads and writes are input tokens too (billed at other rates, counted here at the input's). */
function cached(u: Json): number {
  const w = u['cache_creation_input_tokens'];
  const r = u['cache_read_input_tokens'];
  return (typeof w === 'number' ? w : 0) + (typeof r === 'number' ? r : 0);
}

/** count_tokens answers a number: no text for the client to read, no usage to spend. */
export const ANTHROPIC_COUNT_TOKENS: AnswerFormat = {
  ...ANTHROPIC_MESSAGES,
  visitAnswer: () => undefined,
  toolNames: () => NO_NAMES,
  usage: () => null,
};
