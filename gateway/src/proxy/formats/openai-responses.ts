import { walkText } from '../../policy/input-text.js';
import { responsesItemsMedia } from './request-media.js';
import type { Usage } from '../proxy-context.js';
import type { AnswerFormat, AnswerVisit, DeltaVisit, ErrorBody, FinalVisit } from './answer-format.js';

type Json = Record<string, unknown>;

const NONE: readonly number[] = [];
const NO_NAMES: readonly string[] = [];

/** Output items that are calls of a tool the client runs: a function, or a custom tool (free-form input). */
const CALL_ITEMS: ReadonlySet<string> = new Set(['function_call', 'custom_tool_call']);

function itemCallName(item: unknown, names: string[] | null): string[] | null {
  if (item === null || typeof item !== 'object') return names;
  const it = item as Json;
  if (CALL_ITEMS.has(it['type'] as string) && typeof it['name'] === 'string') (names ??= []).push(it['name']);
  return names;
}

function outputCallNames(response: Json | undefined): readonly string[] {
  const output = response?.['output'];
  if (!Array.isArray(output)) return NO_NAMES;
  let names: string[] | null = null;
  for (const item of output) names = itemCallName(item, names);
  return names ?? NO_NAMES;
}

/** An item's id (an output item's, or an input item a stored response lists): a later call may name it as input. */
function itemId(item: unknown, ids: string[] | null): string[] | null {
  const id = item !== null && typeof item === 'object' ? (item as Json)['id'] : undefined;
  if (typeof id === 'string' && id !== '') (ids ??= []).push(id);
  return ids;
}

function itemIds(items: unknown): readonly string[] {
  if (!Array.isArray(items)) return NO_NAMES;
  let ids: string[] | null = null;
  for (const item of items) ids = itemId(item, ids);
  return ids ?? NO_NAMES;
}

/*
 * A stream's channel: one text an item carries (a content part, a reasoning summary part, a function call's
 * arguments). Output items are numbered by `output_index`, their parts by `content_index` or `summary_index`: both fit
 * in one number, summaries above content.
 */
const PER_ITEM = 4096;
const SUMMARY = 2048;

function num(v: unknown): number {
  return typeof v === 'number' && v >= 0 && v < SUMMARY ? Math.floor(v) : 0;
}

function channelOf(event: Json): number {
  const item = num(event['output_index']) * PER_ITEM;
  return event['summary_index'] !== undefined ? item + SUMMARY + num(event['summary_index']) : item + num(event['content_index']);
}

/** The stream events that add text to a channel (`delta`), and those that end it carrying its whole text. */
const DELTAS: ReadonlySet<string> = new Set([
  'response.output_text.delta',
  'response.refusal.delta',
  'response.function_call_arguments.delta',
  'response.custom_tool_call_input.delta',
  'response.reasoning_text.delta',
  'response.reasoning_summary_text.delta',
]);
const DONE_FIELD: Readonly<Record<string, string>> = {
  'response.output_text.done': 'text',
  'response.refusal.done': 'refusal',
  'response.function_call_arguments.done': 'arguments',
  'response.custom_tool_call_input.done': 'input',
  'response.reasoning_text.done': 'text',
  'response.reasoning_summary_text.done': 'text',
};
/** Events that repeat an ended part (`part`), item (`item`) or the whole response (`response`). */
const PART_DONE: ReadonlySet<string> = new Set(['response.content_part.done', 'response.reasoning_summary_part.done']);
const ITEM_DONE = 'response.output_item.done';
const RESPONSE_DONE: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** A text a content part or reasoning part carries, under the field its type gives it. */
function partField(part: Json): string | null {
  if (typeof part['text'] === 'string') return 'text';
  if (typeof part['refusal'] === 'string') return 'refusal';
  return null;
}

/** Every text an output item carries, each with its channel (the stream's numbering of the same item). */
function visitItem(item: Json, outputIndex: number, visit: (channel: number, text: string) => string): void {
  const base = outputIndex * PER_ITEM;
  if (typeof item['arguments'] === 'string') item['arguments'] = visit(base, item['arguments']);
  if (typeof item['input'] === 'string' && item['type'] === 'custom_tool_call') item['input'] = visit(base, item['input']);
  const content = item['content'];
  if (Array.isArray(content)) {
    for (let i = 0; i < content.length; i++) {
      const part = content[i] as Json | null;
      const field = part && typeof part === 'object' ? partField(part) : null;
      if (field !== null) (part as Json)[field] = visit(base + num(i), (part as Json)[field] as string);
    }
  }
  const summary = item['summary'];
  if (Array.isArray(summary)) {
    for (let i = 0; i < summary.length; i++) {
      const part = summary[i] as Json | null;
      if (part && typeof part === 'object' && typeof part['text'] === 'string') part['text'] = visit(base + SUMMARY + num(i), part['text']);
    }
  }
  // A tool's output the provider ran itself (a code interpreter's logs, a shell's output): read by the client too.
  if (item['type'] !== 'message' && item['type'] !== 'function_call' && item['type'] !== 'reasoning') {
    for (const key of ['output', 'outputs', 'result', 'results']) {
      const v = item[key];
      if (typeof v === 'string') item[key] = visit(-1, v);
      else if (v !== null && typeof v === 'object') walkText(v, (t) => visit(-1, t));
    }
  }
}

function visitResponse(response: Json, visit: (channel: number, text: string) => string): void {
  const output = response['output'];
  if (!Array.isArray(output)) return;
  for (let i = 0; i < output.length; i++) {
    const item = output[i] as Json | null;
    if (item && typeof item === 'object') visitItem(item, i, visit);
  }
}

/** Our error type, as the Responses stream's error `code`. */
const ERROR_CODES: Readonly<Record<string, string>> = {
  svc_policy_violation: 'policy_violation',
  permission_denied: 'permission_denied',
  upstream_unavailable: 'server_error',
  upstream_error: 'server_error',
};

/**
 * OpenAI's Responses API. A whole answer is a response object whose `output` items carry text: a message's
 * `output_text` and `refusal` parts, a function call's `arguments`, a reasoning item's summary, what a hosted tool
 * answered. A stream's `*.delta` events add to one channel per part (`output_index`, then `content_index` or
 * `summary_index`); its `*.done` events end that channel. The events after a delta repeat the whole text (`*.done`,
 * `content_part.done`, `output_item.done`, `response.completed`): each is given the text the client was sent, so the
 * SDK's final texts agree with what it streamed. Events carry a `sequence_number`, renumbered when the proxy adds one.
 */
export const OPENAI_RESPONSES: AnswerFormat = {
  visitAnswer(answer: Json, visit: AnswerVisit): void {
    visitResponse(answer, (_channel, text) => visit(text));
  },
  visitEvent(event: Json, visit: DeltaVisit): void {
    if (typeof event['delta'] === 'string' && DELTAS.has(event['type'] as string)) event['delta'] = visit(channelOf(event), event['delta']);
  },
  endedChannels(event: Json): readonly number[] {
    return DONE_FIELD[event['type'] as string] !== undefined ? [channelOf(event)] : NONE;
  },
  appendDelta(): boolean {
    return false;
  },
  deltaEvent(like: Json, _channel: number, text: string): Json {
    // `like` is that channel's first delta: its type, item and indexes; the number is set when it is relayed.
    const event: Json = { type: like['type'], sequence_number: 0, item_id: like['item_id'], output_index: like['output_index'] };
    if (like['content_index'] !== undefined) event['content_index'] = like['content_index'];
    if (like['summary_index'] !== undefined) event['summary_index'] = like['summary_index'];
    event['delta'] = text;
    if (like['logprobs'] !== undefined) event['logprobs'] = [];
    return event;
  },
  visitFinal(event: Json, visit: FinalVisit): void {
    const type = event['type'] as string;
    const field = DONE_FIELD[type];
    if (field !== undefined) {
      if (typeof event[field] === 'string') event[field] = visit(channelOf(event), event[field]);
      return;
    }
    if (PART_DONE.has(type)) {
      const part = event['part'] as Json | undefined;
      const f = part && typeof part === 'object' ? partField(part) : null;
      if (f !== null) (part as Json)[f] = visit(channelOf(event), (part as Json)[f] as string);
      return;
    }
    if (type === ITEM_DONE) {
      const item = event['item'] as Json | undefined;
      if (item && typeof item === 'object') visitItem(item, num(event['output_index']), visit);
      return;
    }
    if (RESPONSE_DONE.has(type)) {
      const response = event['response'] as Json | undefined;
      if (response && typeof response === 'object') visitResponse(response, visit);
    }
  },
  toolNames(body: Json): readonly string[] {
    const type = body['type'];
    // A stream opens a call with `output_item.added`; its `output_item.done` and the final response repeat it, judged
    // again so that a call the stream never opened is judged all the same.
    if (type === 'response.output_item.added' || type === ITEM_DONE) return itemCallName(body['item'], null) ?? NO_NAMES;
    if (RESPONSE_DONE.has(type as string)) return outputCallNames(body['response'] as Json | undefined);
    // Stream events carry a `type`; a whole answer (a response object) does not.
    return typeof type === 'string' ? NO_NAMES : outputCallNames(body);
  },
  eventName(event: Json): string | null {
    return typeof event['type'] === 'string' ? event['type'] : null;
  },
  streamError(body: ErrorBody): { name: string; data: unknown } {
    // The Responses stream's `error` event (code, message, param), with our envelope beside it: the SDK raises
    // `error` as an APIError.
    return { name: 'error', data: { type: 'error', code: ERROR_CODES[body.error.type] ?? body.error.type, message: body.error.message, param: null, sequence_number: 0, ...body } };
  },
  usage(body: Json): Partial<Usage> | null {
    // A whole answer carries `usage`; a stream, its final `response.completed` (or incomplete, failed) event.
    const response = RESPONSE_DONE.has(body['type'] as string) ? (body['response'] as Json | undefined) : body;
    const u = response?.['usage'] as Json | undefined;
    if (!u || typeof u !== 'object') return null;
    const out: Partial<Usage> = {};
    if (typeof u['input_tokens'] === 'number') out.prompt_tokens = u['input_tokens'];
    if (typeof u['output_tokens'] === 'number') out.completion_tokens = u['output_tokens'];
    return out;
  },
  onlyUsage: () => false,
  storedId(body: Json): string | null {
    const response = body['type'] === 'response.created' ? (body['response'] as Json | undefined) : body['object'] === 'response' ? body : undefined;
    const id = response?.['id'];
    return typeof id === 'string' && id !== '' ? id : null;
  },
  storedItemIds(body: Json): readonly string[] {
    // A stream hands out each item in `output_item.added` (a stream cut later has still named it), then again.
    const type = body['type'];
    if (type === 'response.output_item.added' || type === ITEM_DONE) return itemId(body['item'], null) ?? NO_NAMES;
    if (RESPONSE_DONE.has(type as string)) return itemIds((body['response'] as Json | undefined)?.['output']);
    return typeof type === 'string' ? NO_NAMES : itemIds(body['output']);
  },
  numbered: true,
  repeatsStreamedText: true,
  doneData: null,
};

/** A stored response (`GET /responses/{id}`): its texts as a whole answer's; its usage was counted when it was made. */
export const OPENAI_RESPONSE_STORED: AnswerFormat = {
  ...OPENAI_RESPONSES,
  usage: () => null,
  storedId: () => null,
};

/** A stored response's input items (`GET /responses/{id}/input_items`): every string of every item may be read. */
export const OPENAI_RESPONSE_INPUT_ITEMS: AnswerFormat = {
  ...OPENAI_RESPONSES,
  visitAnswer(answer: Json, visit: AnswerVisit): void {
    const data = answer['data'];
    if (Array.isArray(data)) walkText(data, visit, undefined, responsesItemsMedia(data));
  },
  toolNames: () => NO_NAMES,
  usage: () => null,
  storedId: () => null,
  storedItemIds: (answer: Json) => itemIds(answer['data']),
};

/** A deleted response's acknowledgement: no text, no usage. */
export const OPENAI_RESPONSE_DELETED: AnswerFormat = {
  ...OPENAI_RESPONSES,
  visitAnswer: () => undefined,
  toolNames: () => NO_NAMES,
  usage: () => null,
  storedId: () => null,
};
