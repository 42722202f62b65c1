import { walkText } from '../../policy/input-text.js';
import type { Usage } from '../proxy-context.js';
import type { AnswerFormat, AnswerVisit, DeltaVisit, ErrorBody, FinalVisit } from './answer-format.js';

type Json = Record<string, unknown>;

const NONE: readonly number[] = [];
const NO_NAMES: readonly string[] = [];

function candidatesOf(body: Json): Json[] {
  const c = body['candidates'];
  return Array.isArray(c) ? (c as Json[]) : [];
}

/** A candidate's channel: its index, never negative (-1 is visitFinal's channel of texts never streamed). */
function indexOf(candidate: Json): number {
  const i = candidate['index'];
  return typeof i === 'number' && Number.isSafeInteger(i) && i >= 0 ? i : 0;
}

function partsOf(candidate: Json): Json[] {
  const parts = (candidate['content'] as Json | undefined)?.['parts'];
  return Array.isArray(parts) ? (parts as Json[]) : [];
}

/** Every string of a `functionCall` part's `args`, keys included (the client reads them too). */
function visitCallArgs(part: Json, visit: AnswerVisit): void {
  const call = part['functionCall'] as Json | undefined;
  if (call && typeof call === 'object' && call['args'] && typeof call['args'] === 'object') walkText(call['args'] as object, visit);
}

/** Our error type, as the canonical status Google's APIs name an error by. */
const STATUSES: Readonly<Record<string, string>> = {
  invalid_request: 'INVALID_ARGUMENT',
  authentication_error: 'UNAUTHENTICATED',
  permission_denied: 'PERMISSION_DENIED',
  svc_policy_violation: 'PERMISSION_DENIED',
  not_found: 'NOT_FOUND',
  // Google answers a request past its size limit as an invalid argument.
  payload_too_large: 'INVALID_ARGUMENT',
  rate_limit_exceeded: 'RESOURCE_EXHAUSTED',
  internal_error: 'INTERNAL',
  upstream_error: 'UNAVAILABLE',
  upstream_unavailable: 'UNAVAILABLE',
};

/**
 * Google's error shape (`{error: {code, message, status}}`, a whole answer's body or a stream's last chunk): our
 * envelope's `code` is the HTTP status as Google's is, and its other fields (type, rule, trace id; verdict and policy
 * of a block) stay beside Google's.
 */
export function geminiError(body: ErrorBody): object {
  return { ...body, error: { ...body.error, status: STATUSES[body.error.type] ?? 'UNKNOWN' } };
}

/**
 * Google's Gemini API (generateContent and its SSE stream): each candidate's `content.parts` text and every string of
 * a `functionCall`'s `args`; a stream chunk is a whole response whose candidates carry the next text, one channel per
 * candidate, the held tail added to the chunk that ends it (`finishReason`). A stream sends a function call whole, in
 * one chunk: its args are texts never streamed (channel -1 of visitFinal), each redacted whole. Usage is
 * `usageMetadata` (a stream's chunks carry it as running totals).
 */
export const GEMINI: AnswerFormat = {
  visitAnswer(answer: Json, visit: AnswerVisit): void {
    for (const candidate of candidatesOf(answer)) {
      for (const part of partsOf(candidate)) {
        if (typeof part['text'] === 'string') part['text'] = visit(part['text']);
        visitCallArgs(part, visit);
      }
    }
  },
  visitFinal(event: Json, visit: FinalVisit): void {
    // Most chunks carry no call: the adapter is made only for one that does.
    let whole: AnswerVisit | null = null;
    for (const candidate of candidatesOf(event)) {
      for (const part of partsOf(candidate)) if (part['functionCall'] !== undefined) visitCallArgs(part, (whole ??= (text) => visit(-1, text)));
    }
  },
  visitEvent(event: Json, visit: DeltaVisit): void {
    for (const candidate of candidatesOf(event)) {
      const channel = indexOf(candidate);
      for (const part of partsOf(candidate)) if (typeof part['text'] === 'string') part['text'] = visit(channel, part['text']);
    }
  },
  endedChannels(event: Json): readonly number[] {
    let ended: number[] | null = null;
    for (const candidate of candidatesOf(event)) if (candidate['finishReason'] != null) (ended ??= []).push(indexOf(candidate));
    return ended ?? NONE;
  },
  appendDelta(event: Json, channel: number, text: string): boolean {
    const candidate = candidatesOf(event).find((c) => indexOf(c) === channel);
    if (!candidate) return false;
    const content = (candidate['content'] ??= { role: 'model', parts: [] }) as Json;
    const parts = (Array.isArray(content['parts']) ? content['parts'] : (content['parts'] = [])) as Json[];
    const last = [...parts].reverse().find((p) => typeof p['text'] === 'string');
    if (last) last['text'] = (last['text'] as string) + text;
    else parts.push({ text });
    return true;
  },
  deltaEvent(_like: Json, channel: number, text: string): Json {
    return { candidates: [{ index: channel, content: { role: 'model', parts: [{ text }] } }] };
  },
  toolNames(body: Json): readonly string[] {
    // A stream chunk is a whole response, its function calls whole: the same reading for both.
    let names: string[] | null = null;
    for (const candidate of candidatesOf(body)) {
      if (!candidate || typeof candidate !== 'object') continue;
      for (const part of partsOf(candidate)) {
        const name = (part?.['functionCall'] as Json | undefined)?.['name'];
        if (typeof name === 'string') (names ??= []).push(name);
      }
    }
    return names ?? NO_NAMES;
  },
  eventName: () => null,
  streamError(body: ErrorBody): { name: null; data: unknown } {
    return { name: null, data: geminiError(body) };
  },
  usage(body: Json): Partial<Usage> | null {
    const u = body['usageMetadata'] as Json | undefined;
    if (!u || typeof u !== 'object') return null;
    const out: Partial<Usage> = {};
    if (typeof u['promptTokenCount'] === 'number') out.prompt_tokens = u['promptTokenCount'];
    if (typeof u['candidatesTokenCount'] === 'number') out.completion_tokens = u['candidatesTokenCount'];
    return out;
  },
  onlyUsage: () => false,
  doneData: null,
};

/** countTokens and the embedding calls answer numbers: no text for the client to read. */
export const GEMINI_NO_TEXT: AnswerFormat = {
  ...GEMINI,
  visitAnswer: () => undefined,
  visitEvent: () => undefined,
  visitFinal: undefined,
  endedChannels: () => NONE,
  toolNames: () => NO_NAMES,
};
