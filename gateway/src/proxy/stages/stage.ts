import type { ProxyContext } from '../proxy-context.js';

/**
 * One stage of a proxied call, as the pipeline declares them: continues by returning, answers directly by throwing a
 * GatewayError (a local reply, like an Envoy filter's: nothing after it runs, and before the forward stage the upstream
 * is never contacted). Built once at start from frozen config; its name is its file's.
 */
export interface Stage {
  readonly name: string;
  /**
   * A promise only when the stage must wait (body, worker, upstream); the common governance path stays synchronous.
   * What it resolves to is unused: a stage leaves its results in the context.
   */
  run(c: ProxyContext): void | Promise<unknown>;
}
