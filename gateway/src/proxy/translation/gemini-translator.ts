import type { ChatTranslator } from './chat-translator.js';
import { geminiAnswer } from './gemini-answer.js';
import { geminiError } from './gemini-errors.js';
import { geminiRequest } from './gemini-request.js';
import { geminiStream } from './gemini-stream.js';

/**
 * OpenAI chat completions served by Google's Gemini API (generateContent, streamGenerateContent with `alt=sse`): the
 * mapping field by field is docs/translation.md's Gemini section.
 */
export const geminiTranslator: ChatTranslator = {
  provider: 'gemini',
  request: geminiRequest,
  answer: geminiAnswer,
  stream: geminiStream,
  error: geminiError,
};
