import type { ProxyContext } from '../proxy-context.js';

/**
 * A request-side stage: continues by returning, answers directly by throwing a GatewayError (a local reply, like an
 * Envoy filter's: nothing after it runs, and the upstream is never contacted). Built once at start from frozen config.
 */
export interface RequestStage {
  readonly name: string;
  /** A promise only when the stage must wait (a large input judged in the worker); the common path stays synchronous. */
  run(c: ProxyContext): void | Promise<void>;
}

/** A response-side stage for a whole (non-streamed) answer. Response stages run in reverse order of declaration. */
export interface ResponseStage {
  readonly name: string;
  run(c: ProxyContext, answer: Record<string, unknown>): void;
}
