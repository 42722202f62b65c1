import { collectStrings, collectText, walkText, type MediaSlots, type TextVisit } from '../policy/input-text.js';

/** Calls `visit` on every string of a request, letting it replace the string (redaction). */
type Visit = TextVisit;

/** Top-level fields of a provider request that are not text for the model (the model name picks the model). */
const NOT_TEXT: ReadonlySet<string> = new Set(['model']);

/**
 * Every string of a provider request that the provider may read, object keys included (docs/policies.md, "What is
 * judged"): the whole object is walked, so fields such as tool descriptions, message names, predictions, schema
 * descriptions or a completion's suffix are judged like the messages. `visit` may replace a string (redaction).
 * `media` is where the endpoint's schema puts media (the endpoint's `requestMedia`, found once per request).
 */
export function visitRequestText(body: Record<string, unknown>, visit: Visit, media: MediaSlots): void {
  walkText(body, visit, NOT_TEXT, media);
}

/** The request's text, joined with '\n', for policies and the hallucination shield. */
export function requestText(body: Record<string, unknown>, media: MediaSlots): string {
  return collectText(body, NOT_TEXT, media);
}

/** The request's strings in walk order (what the evaluation worker judges and redacts). */
export function collectRequestStrings(body: Record<string, unknown>, media: MediaSlots): string[] {
  return collectStrings(body, NOT_TEXT, [], media);
}

/** Puts back strings (redacted by the worker) in the same walk order they were collected in. */
export function replaceRequestStrings(body: Record<string, unknown>, strings: readonly string[], media: MediaSlots): void {
  let i = 0;
  walkText(body, (t) => strings[i++] ?? t, NOT_TEXT, media);
}

/** Token-id prompts (`[1, 2]` or `[[1], [2]]`): numbers a policy cannot read. */
export function hasTokenIds(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const v of value) if (typeof v === 'number' || Array.isArray(v)) return true;
  return false;
}
