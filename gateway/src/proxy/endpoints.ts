import type { AnswerFormat } from './formats/answer-format.js';
import { OPENAI_CHAT, OPENAI_COMPLETIONS, OPENAI_EMBEDDINGS } from './formats/openai-answers.js';

/** The proxied provider endpoints (docs/decisions.md, "Governance proxy"). */
export type EndpointKind = 'chat' | 'completions' | 'embeddings' | 'models';

export interface Endpoint {
  readonly kind: EndpointKind;
  /** Path below the upstream base URL. */
  readonly upstreamPath: string;
  /** Ledger event type of a call. */
  readonly eventType: string;
  /** Full governance, or a passthrough (models). */
  readonly governed: boolean;
  /** Where its answers, whole or streamed, carry text and usage. */
  readonly format: AnswerFormat;
}

export const ENDPOINTS: Readonly<Record<EndpointKind, Endpoint>> = {
  chat: { kind: 'chat', upstreamPath: '/chat/completions', eventType: 'proxy.chat.completions', governed: true, format: OPENAI_CHAT },
  completions: { kind: 'completions', upstreamPath: '/completions', eventType: 'proxy.completions', governed: true, format: OPENAI_COMPLETIONS },
  embeddings: { kind: 'embeddings', upstreamPath: '/embeddings', eventType: 'proxy.embeddings', governed: true, format: OPENAI_EMBEDDINGS },
  models: { kind: 'models', upstreamPath: '/models', eventType: 'proxy.models', governed: false, format: OPENAI_EMBEDDINGS },
};
