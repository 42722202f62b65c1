import type { Usage } from '../proxy-context.js';

/** Our error body (the envelope, with verdict and policy when a policy blocked the call). */
export interface ErrorBody {
  error: { type: string; message: string };
}

/** Replaces one string the client will read; returns what to put back (redaction). */
export type AnswerVisit = (text: string) => string;

/**
 * Replaces a whole text that an event repeats after streaming it in deltas, on its channel (-1: a text that was never
 * streamed); returns what to put back (the text the client was sent on that channel).
 */
export type FinalVisit = (channel: number, text: string) => string;

/** Replaces one text delta of a stream event on its channel (a choice of the answer); returns what to put back. */
export type DeltaVisit = (channel: number, text: string) => string;

/**
 * Where one provider answer format carries what the client reads, whole or streamed. The response stages ask the
 * format and never branch on the provider; a wire format (`wire/`) names the answer format of each of its endpoints.
 */
export interface AnswerFormat {
  /** Every string of a whole answer that the client reads, in order. */
  visitAnswer(answer: Record<string, unknown>, visit: AnswerVisit): void;
  /** The text deltas of one stream event. A channel's deltas join into one text (redacted across events). */
  visitEvent(event: Record<string, unknown>, visit: DeltaVisit): void;
  /**
   * The channels whose text this event ends (their held tail goes with this event, through `appendDelta`); `open` holds
   * the channels seen so far, for a format whose ending event does not name each of them (OpenAI's tool calls).
   */
  endedChannels(event: Record<string, unknown>, open: ReadonlyMap<number, unknown>): readonly number[];
  /**
   * Adds `text` to the channel's delta in this event; false when this event cannot carry text (Anthropic's
   * `content_block_stop`): the tail then goes in an event of its own, just before this one.
   */
  appendDelta(event: Record<string, unknown>, channel: number, text: string): boolean;
  /** A new event that carries `text` as the channel's next delta, shaped like `like` (that channel's first delta event). */
  deltaEvent(like: Record<string, unknown>, channel: number, text: string): Record<string, unknown>;
  /**
   * The whole texts an event repeats after their deltas (Responses' `*.done` and `response.completed`), when the format
   * has such events: each is replaced by what the client was sent, so its final texts agree with its stream.
   */
  visitFinal?(event: Record<string, unknown>, visit: FinalVisit): void;
  /**
   * `visitFinal` repeats texts the stream sent in deltas (Responses), so each channel's sent text is kept to put back;
   * without it, `visitFinal` gives only texts never streamed (Gemini's function calls) and nothing is kept.
   */
  readonly repeatsStreamedText?: boolean;
  /** Events carry a `sequence_number` from 0 up, kept consecutive when the proxy adds or drops one (Responses). */
  readonly numbered?: boolean;
  /** The SSE event name an event of this format is sent under (Anthropic's `event:` line), or null for none. */
  eventName(event: Record<string, unknown>): string | null;
  /** The in-band error that cuts a stream, from our error body: the SSE event name (or null) and its data. */
  streamError(body: ErrorBody): { name: string | null; data: unknown };
  /**
   * Token usage in a whole answer or a stream event, or null. A stream may report it in parts (Anthropic: input
   * tokens at its start, output tokens at its end): what an event leaves out is kept from earlier events.
   */
  usage(body: Record<string, unknown>): Partial<Usage> | null;
  /** A stream event that carries nothing but usage (relayed only when the client asked for usage). */
  onlyUsage(event: Record<string, unknown>): boolean;
  /**
   * The id under which the provider keeps what this answer made, when it keeps it for later calls to name (a Responses
   * answer, or a stream's `response.created`); null otherwise.
   */
  storedId?(body: Record<string, unknown>): string | null;
  /**
   * The ids of the items a whole answer or one stream event hands the client, which the provider keeps and a later call
   * may name as input (a Responses answer's output items, a stored response's listed input items); none otherwise.
   */
  storedItemIds?(body: Record<string, unknown>): readonly string[];
  /**
   * The tool names a whole answer or one stream event names as calls for the client to make (a format with no tools:
   * none), for `tool_access` policies. A stream names each call once, in the event that opens it.
   */
  toolNames(body: Record<string, unknown>): readonly string[];
  /** The data of the event that ends a stream, when the format has one (OpenAI's `[DONE]`). */
  readonly doneData: string | null;
}
