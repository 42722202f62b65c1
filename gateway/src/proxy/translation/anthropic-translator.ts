import { anthropicAnswer } from './anthropic-answer.js';
import { anthropicErrorAnswer } from './anthropic-error.js';
import { anthropicRequest } from './anthropic-request.js';
import { AnthropicStream } from './anthropic-stream.js';
import type { ChatTranslator } from './chat-translator.js';

/**
 * OpenAI chat completions served by Anthropic's Messages API (`POST /v1/messages`, `anthropic-version: 2023-06-01`),
 * field by field as docs/translation.md's "Anthropic" section writes it down.
 */
export const anthropicTranslator: ChatTranslator = {
  provider: 'anthropic',
  request: anthropicRequest,
  answer: anthropicAnswer,
  stream: (model, includeUsage) => new AnthropicStream(model, includeUsage),
  error: anthropicErrorAnswer,
};
