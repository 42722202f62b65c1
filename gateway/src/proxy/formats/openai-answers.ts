import type { Usage } from '../proxy-context.js';
import type { AnswerFormat, AnswerVisit, DeltaVisit, ErrorBody } from './answer-format.js';

type Json = Record<string, unknown>;

function choicesOf(body: Json): Json[] {
  const choices = body['choices'];
  return Array.isArray(choices) ? (choices as Json[]) : [];
}

function indexOf(choice: Json): number {
  return typeof choice['index'] === 'number' ? choice['index'] : 0;
}

const NO_NAMES: readonly string[] = [];

/** The `function.name` of each tool call (and of the legacy `function_call`) in a message or a delta. */
function callNames(msg: Json | undefined, names: string[] | null): string[] | null {
  if (!msg || typeof msg !== 'object') return names;
  const calls = msg['tool_calls'];
  if (Array.isArray(calls)) {
    for (const tc of calls as (Json | null)[]) {
      const name = (tc?.['function'] as Json | undefined)?.['name'];
      if (typeof name === 'string') (names ??= []).push(name);
    }
  }
  const legacy = (msg['function_call'] as Json | undefined)?.['name'];
  if (typeof legacy === 'string') (names ??= []).push(legacy);
  return names;
}

function usageOf(body: Json): Partial<Usage> | null {
  const u = body['usage'];
  return u && typeof u === 'object' ? (u as Partial<Usage>) : null;
}

/*
 * A chat stream's channels: a choice's content is channel `index`; its tool call `j` (`delta.tool_calls[].index`) is
 * channel `(j + 1) * TOOL + index`.
 */
const TOOL = 1 << 16;

function toolChannel(choice: number, call: unknown): number {
  return (typeof call === 'number' && call >= 0 && call < 4096 ? call + 1 : 1) * TOOL + choice;
}

/**
 * OpenAI's chat completions: a whole answer's message content and tool-call arguments; a stream's `delta.content`
 * and each tool call's `function.arguments` deltas per choice, all ended by the choice's `finish_reason`, whose event
 * carries what each held back.
 */
export const OPENAI_CHAT: AnswerFormat = {
  visitAnswer(answer: Json, visit: AnswerVisit): void {
    for (const choice of choicesOf(answer)) {
      if (!choice || typeof choice !== 'object') continue;
      const msg = choice['message'] as Json | undefined;
      if (!msg || typeof msg !== 'object') continue;
      if (typeof msg['content'] === 'string') msg['content'] = visit(msg['content']);
      const calls = msg['tool_calls'];
      if (!Array.isArray(calls)) continue;
      for (const tc of calls) {
        const fn = (tc as Json | null)?.['function'] as Json | undefined;
        if (fn && typeof fn['arguments'] === 'string') fn['arguments'] = visit(fn['arguments']);
      }
    }
  },
  visitEvent(event: Json, visit: DeltaVisit): void {
    for (const choice of choicesOf(event)) {
      const delta = choice['delta'] as Json | undefined;
      if (!delta) continue;
      if (typeof delta['content'] === 'string') delta['content'] = visit(indexOf(choice), delta['content']);
      const calls = delta['tool_calls'];
      if (!Array.isArray(calls)) continue;
      for (const call of calls as (Json | null)[]) {
        const fn = call?.['function'] as Json | undefined;
        if (fn && typeof fn['arguments'] === 'string') fn['arguments'] = visit(toolChannel(indexOf(choice), call!['index']), fn['arguments']);
      }
    }
  },
  endedChannels(event: Json, open: ReadonlyMap<number, unknown>): readonly number[] {
    const ended = endedChoices(event);
    if (ended.length === 0) return ended;
    const all = [...ended];
    for (const channel of open.keys()) if (channel >= TOOL && ended.includes(channel % TOOL)) all.push(channel);
    return all;
  },
  appendDelta(event: Json, channel: number, text: string): boolean {
    const choice = choicesOf(event).find((ch) => indexOf(ch) === channel % TOOL);
    if (!choice) return false;
    const delta = (choice['delta'] ??= {}) as Json;
    if (channel < TOOL) {
      delta['content'] = typeof delta['content'] === 'string' ? delta['content'] + text : text;
      return true;
    }
    const index = Math.floor(channel / TOOL) - 1;
    const calls = (Array.isArray(delta['tool_calls']) ? delta['tool_calls'] : (delta['tool_calls'] = [])) as Json[];
    const call = calls.find((tc) => tc['index'] === index);
    const fn = call?.['function'] as Json | undefined;
    if (fn) fn['arguments'] = typeof fn['arguments'] === 'string' ? fn['arguments'] + text : text;
    else calls.push({ index, function: { arguments: text } });
    return true;
  },
  deltaEvent(like: Json, channel: number, text: string): Json {
    const index = channel % TOOL;
    const delta = channel < TOOL ? { content: text } : { tool_calls: [{ index: Math.floor(channel / TOOL) - 1, function: { arguments: text } }] };
    return { id: like['id'], object: like['object'], created: like['created'], model: like['model'], choices: [{ index, delta, finish_reason: null }] };
  },
  toolNames(body: Json): readonly string[] {
    // A whole answer's `message`, a stream event's `delta` (whose first event of each call carries its name).
    let names: string[] | null = null;
    for (const choice of choicesOf(body)) {
      if (!choice || typeof choice !== 'object') continue;
      names = callNames((choice['message'] ?? choice['delta']) as Json | undefined, names);
    }
    return names ?? NO_NAMES;
  },
  eventName: noEventName,
  streamError: envelopeAsData,
  usage: usageOf,
  onlyUsage: (event) => choicesOf(event).length === 0,
  doneData: '[DONE]',
};

/** OpenAI's legacy completions: each choice's `text`, whole or streamed. */
export const OPENAI_COMPLETIONS: AnswerFormat = {
  visitAnswer(answer: Json, visit: AnswerVisit): void {
    for (const choice of choicesOf(answer)) {
      if (choice && typeof choice === 'object' && typeof choice['text'] === 'string') choice['text'] = visit(choice['text']);
    }
  },
  visitEvent(event: Json, visit: DeltaVisit): void {
    for (const choice of choicesOf(event)) {
      if (typeof choice['text'] === 'string') choice['text'] = visit(indexOf(choice), choice['text']);
    }
  },
  endedChannels(event: Json): readonly number[] {
    return endedChoices(event);
  },
  appendDelta(event: Json, channel: number, text: string): boolean {
    const choice = choicesOf(event).find((ch) => indexOf(ch) === channel);
    if (!choice) return false;
    choice['text'] = typeof choice['text'] === 'string' ? choice['text'] + text : text;
    return true;
  },
  deltaEvent(like: Json, channel: number, text: string): Json {
    return { id: like['id'], object: like['object'], created: like['created'], model: like['model'], choices: [{ index: channel, text, finish_reason: null }] };
  },
  toolNames: () => NO_NAMES,
  eventName: noEventName,
  streamError: envelopeAsData,
  usage: usageOf,
  onlyUsage: (event) => choicesOf(event).length === 0,
  doneData: '[DONE]',
};

/** OpenAI's embeddings: vectors, no text for the client to read; usage as the others. */
export const OPENAI_EMBEDDINGS: AnswerFormat = {
  ...OPENAI_COMPLETIONS,
  visitAnswer: () => undefined,
  visitEvent: () => undefined,
  endedChannels: () => [],
};

const NONE: readonly number[] = [];

/** OpenAI's streams name no events. */
function noEventName(): null {
  return null;
}

/** A cut OpenAI stream ends in a data event carrying our error envelope (the SDKs raise it as an API error). */
function envelopeAsData(body: ErrorBody): { name: null; data: unknown } {
  return { name: null, data: body };
}

function endedChoices(event: Json): readonly number[] {
  let ended: number[] | null = null;
  for (const choice of choicesOf(event)) {
    if (choice['finish_reason'] != null) (ended ??= []).push(indexOf(choice));
  }
  return ended ?? NONE;
}
