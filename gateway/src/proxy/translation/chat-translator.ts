/**
 * OpenAI chat completions served by a provider of another wire format (docs/translation.md): the agent's request,
 * already judged and redacted, becomes the provider's; the provider's answer, whole or streamed, and its errors become
 * OpenAI's, which the answer's checks then read as they read any chat completion. One translator per provider, pure
 * functions and a per-stream state: no I/O, nothing shared between calls.
 */

/** A JSON object as parsed (a request body, an answer, a stream event's data). */
export type Json = Record<string, unknown>;

/** The provider's request for an OpenAI chat completions body. */
export interface TranslatedRequest {
  /** Below the target's base URL, query included (Gemini's `?alt=sse` for a stream). */
  readonly path: string;
  readonly body: Json;
  /** Headers the provider requires beside its key (Anthropic's `anthropic-version`). */
  readonly headers: Readonly<Record<string, string>>;
  /** Whether the provider was asked for a stream (the agent's `stream: true`). */
  readonly stream: boolean;
}

/** An OpenAI error answer: its status and body, so that the OpenAI SDKs raise their own error classes. */
export interface TranslatedError {
  readonly status: number;
  readonly body: { readonly error: { readonly message: string; readonly type: string; readonly param: string | null; readonly code: string | null } };
}

/**
 * One streamed answer's translation. `event` takes each of the provider's SSE events in order (its `event:` name, or
 * null, and its parsed `data`) and returns the OpenAI `chat.completion.chunk` objects it makes (often none, sometimes
 * several); `end` returns what closes the stream once the provider's ended (the usage chunk when asked for, if not
 * sent yet). The caller writes each chunk as an SSE `data:` line and `[DONE]` after `end`'s.
 */
export interface StreamTranslation {
  event(name: string | null, data: Json): readonly Json[];
  end(): readonly Json[];
}

export interface ChatTranslator {
  readonly provider: 'anthropic' | 'gemini';
  /**
   * The provider's request for `body` (an OpenAI chat completions request) asking for `model` (the target's model
   * name). Throws GatewayError('invalid_request') naming the field and `target` (the route's target name) for anything
   * the provider cannot express (`n > 1`, `logprobs`, audio, …): never silently dropped.
   */
  request(body: Json, model: string, target: string): TranslatedRequest;
  /** A whole 2xx answer of the provider as an OpenAI `chat.completion` object; `model` is the model asked for. */
  answer(body: Json, model: string): Json;
  /** A new stream's translation; `includeUsage`: the agent asked for `stream_options.include_usage`. */
  stream(model: string, includeUsage: boolean): StreamTranslation;
  /** A provider's error answer (status and parsed body, null when it was not JSON) as OpenAI's. */
  error(status: number, body: unknown): TranslatedError;
}
