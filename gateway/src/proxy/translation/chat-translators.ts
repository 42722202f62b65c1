import type { Provider } from '../wire/wire-formats.js';
import type { ChatTranslator } from './chat-translator.js';
import { anthropicTranslator } from './anthropic-translator.js';
import { geminiTranslator } from './gemini-translator.js';

/** The providers an OpenAI chat completion can be translated to (docs/translation.md). */
export const CHAT_TRANSLATORS: Readonly<Partial<Record<Provider, ChatTranslator>>> = Object.freeze({ anthropic: anthropicTranslator, gemini: geminiTranslator });

/** Whether calls of an endpoint can be translated to another provider: OpenAI's and Azure's chat completions. */
export function translatable(endpointKind: string): boolean {
  return endpointKind === 'chat' || endpointKind === 'azure.chat';
}
