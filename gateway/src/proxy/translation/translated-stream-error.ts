import type { TranslatedError } from './chat-translator.js';

/**
 * What a stream translation's `event` throws when the provider reports an error after the stream began (Anthropic's
 * `error` event): an OpenAI error is not a chunk. The caller ends the agent's stream with it: one `data:` line holding
 * `error.body` (`{error: {message, type, param, code}}`, which the OpenAI SDKs raise as an APIError mid-stream), no
 * `[DONE]`, and `error.status` as the call's outcome.
 */
export class TranslatedStreamError extends Error {
  constructor(readonly error: TranslatedError) {
    super(error.body.error.message);
    this.name = 'TranslatedStreamError';
  }
}
