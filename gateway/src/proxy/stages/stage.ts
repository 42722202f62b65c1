import type { ProxyContext } from '../proxy-context.js';

/**
 * One step of a proxied call, as the pipeline declares them: continues by returning, answers directly by throwing a
 * GatewayError (a local reply, like an Envoy filter's: nothing after it runs, and before the forward step the upstream
 * is never contacted). Built once at start from frozen config.
 */
export interface Step {
  readonly name: string;
  /**
   * A promise only when the step must wait (body, worker, upstream); the common governance path stays synchronous.
   * What it resolves to is unused: a step leaves its results in the context.
   */
  run(c: ProxyContext): void | Promise<unknown>;
}

/** A request-side step (before the forward). */
export type RequestStage = Step;

/** A response-side stage for a whole (non-streamed) answer. Response stages run in reverse order of declaration. */
export interface ResponseStage {
  readonly name: string;
  run(c: ProxyContext, answer: Record<string, unknown>): void;
}
