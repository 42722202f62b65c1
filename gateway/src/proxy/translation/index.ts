// The translators of OpenAI chat completions, for the benchmarks (docs/translation.md).
export type { ChatTranslator, Json, StreamTranslation, TranslatedError, TranslatedRequest } from './chat-translator.js';
export { anthropicTranslator } from './anthropic-translator.js';
export { geminiTranslator } from './gemini-translator.js';
