import type { Usage } from '../proxy-context.js';

/** Replaces one string the client will read; returns what to put back (redaction). */
export type AnswerVisit = (text: string) => string;

/** Replaces one text delta of a stream event on its channel (a choice of the answer); returns what to put back. */
export type DeltaVisit = (channel: number, text: string) => string;

/**
 * Where one provider answer format carries what the client reads, whole or streamed. The response stages ask the
 * format and never branch on the provider; a new wire format is a new implementation of this and a table row.
 */
export interface AnswerFormat {
  /** Every string of a whole answer that the client reads, in order. */
  visitAnswer(answer: Record<string, unknown>, visit: AnswerVisit): void;
  /** The text deltas of one stream event. A channel's deltas join into one text (redacted across events). */
  visitEvent(event: Record<string, unknown>, visit: DeltaVisit): void;
  /** The channels whose text this event ends (their held tail goes into this event, through `appendDelta`). */
  endedChannels(event: Record<string, unknown>): readonly number[];
  /** Adds `text` to the channel's delta in this event (creating the delta when the event has none). */
  appendDelta(event: Record<string, unknown>, channel: number, text: string): void;
  /** A new event that carries `text` as the channel's next delta, shaped like `like` (an event of the same stream). */
  deltaEvent(like: Record<string, unknown>, channel: number, text: string): Record<string, unknown>;
  /** Token usage in a whole answer or a stream event, or null. */
  usage(body: Record<string, unknown>): Partial<Usage> | null;
  /** A stream event that carries nothing but usage (relayed only when the client asked for usage). */
  onlyUsage(event: Record<string, unknown>): boolean;
  /** The data of the event that ends a stream, when the format has one (OpenAI's `[DONE]`). */
  readonly doneData: string | null;
}
