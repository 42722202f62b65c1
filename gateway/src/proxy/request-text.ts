import type { EndpointKind } from './endpoints.js';
import { collectStrings, collectText, walkText, type TextVisit } from '../policy/input-text.js';

/** Calls `visit` on every user-supplied text of an answer, letting it replace the string (redaction). */
type Visit = TextVisit;

/** Top-level fields of a provider request that are not text for the model (the model name picks the model). */
const NOT_TEXT: ReadonlySet<string> = new Set(['model']);

/**
 * Every string of a provider request that the provider may read, object keys included (docs/policies.md, "What is
 * judged"): the whole object is walked, so fields such as tool descriptions, message names, predictions, schema
 * descriptions or a completion's suffix are judged like the messages. `visit` may replace a string (redaction).
 */
export function visitRequestText(body: Record<string, unknown>, visit: Visit): void {
  walkText(body, visit, NOT_TEXT);
}

/** The request's text, joined with '\n', for policies and the hallucination shield. */
export function requestText(body: Record<string, unknown>): string {
  return collectText(body, NOT_TEXT);
}

/** The request's strings in walk order (what the evaluation worker judges and redacts). */
export function collectRequestStrings(body: Record<string, unknown>): string[] {
  return collectStrings(body, NOT_TEXT);
}

/** Puts back strings (redacted by the worker) in the same walk order they were collected in. */
export function replaceRequestStrings(body: Record<string, unknown>, strings: readonly string[]): void {
  let i = 0;
  walkText(body, (t) => strings[i++] ?? t, NOT_TEXT);
}

/** Token-id prompts (`[1, 2]` or `[[1], [2]]`): numbers a policy cannot read. */
export function hasTokenIds(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const v of value) if (typeof v === 'number' || Array.isArray(v)) return true;
  return false;
}

/** The answer's texts (non-streamed), same contract: chat message content and tool-call arguments, completion text. */
export function visitAnswerText(kind: EndpointKind, body: Record<string, unknown>, visit: Visit): void {
  const choices = body['choices'];
  if (!Array.isArray(choices)) return;
  for (const c of choices) {
    if (!c || typeof c !== 'object') continue;
    const choice = c as Record<string, unknown>;
    if (kind === 'completions') {
      if (typeof choice['text'] === 'string') choice['text'] = visit(choice['text']);
      continue;
    }
    const msg = choice['message'] as Record<string, unknown> | undefined;
    if (!msg || typeof msg !== 'object') continue;
    if (typeof msg['content'] === 'string') msg['content'] = visit(msg['content']);
    const calls = msg['tool_calls'];
    if (Array.isArray(calls)) {
      for (const tc of calls) {
        const fn = (tc as Record<string, unknown> | null)?.['function'] as Record<string, unknown> | undefined;
        if (fn && typeof fn['arguments'] === 'string') fn['arguments'] = visit(fn['arguments']);
      }
    }
  }
}
