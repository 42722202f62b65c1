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
  /** The answer carries text to check (not embeddings' vectors). */
  readonly textAnswer: boolean;
}

export const ENDPOINTS: Readonly<Record<EndpointKind, Endpoint>> = {
  chat: { kind: 'chat', upstreamPath: '/chat/completions', eventType: 'proxy.chat.completions', governed: true, textAnswer: true },
  completions: { kind: 'completions', upstreamPath: '/completions', eventType: 'proxy.completions', governed: true, textAnswer: true },
  embeddings: { kind: 'embeddings', upstreamPath: '/embeddings', eventType: 'proxy.embeddings', governed: true, textAnswer: false },
  models: { kind: 'models', upstreamPath: '/models', eventType: 'proxy.models', governed: false, textAnswer: false },
};
