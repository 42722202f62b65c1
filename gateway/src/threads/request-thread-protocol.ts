import type { ObservedRoute } from '../governance/audit-trail.js';
import type { DecisionRecord } from '../governance/decisions/decision-store.js';
import type { ThreadNotice } from '../platform/notice-slot.js';

/** A decision a request thread made, for the main thread's observers (telemetry, agents' last contact and risk). */
export interface ObservedDecision {
  readonly d: DecisionRecord;
  readonly latencyMs: number;
  readonly outcome: string | null;
  readonly costBrl: number;
  /** A routed call's attempts (the ledger entry's `route`), or null. */
  readonly route: ObservedRoute | null;
}

/** The main thread's control messages to a request thread. */
export type ToRequestThreadControl =
  | { readonly t: 'close' }
  /**
   * A change to what the thread caches (platform/notice-slot.ts): applied before it is acknowledged, and the admin
   * call that caused it is answered only after every thread acknowledged it.
   */
  | { readonly t: 'notice'; readonly n: number; readonly notice: ThreadNotice }
  /** Answer once every ledger and decision write this thread handed over so far is committed. */
  | { readonly t: 'barrier'; readonly n: number };

/** A request thread's control messages to the main thread. */
export type FromRequestThread =
  /**
   * Its app is built: the descriptor the agents' port's acceptor hands connections to, and the routes it serves
   * ("method pattern"), which must be the main thread's agents' routes.
   */
  | { readonly t: 'ready'; readonly descriptor: number; readonly routes: readonly string[] }
  /** It could not be built: the error's message. */
  | { readonly t: 'failed'; readonly message: string }
  /** Its app closed every socket; the thread ends. */
  | { readonly t: 'closed' }
  /** Notice or barrier `n` is done. */
  | { readonly t: 'ack'; readonly n: number }
  /**
   * What its requests did in one turn that the main thread keeps: decisions for the observers, answers' latencies
   * (server, seconds), its ledger entries' times from queued to flushed (seconds), the breakers its routes opened
   * (tenant, target, open until: ms since the epoch).
   */
  | {
      readonly t: 'observed';
      readonly decisions: readonly ObservedDecision[];
      readonly answered: readonly (readonly [string, number])[];
      readonly appended: readonly number[];
      readonly breakers: readonly (readonly [string, string, number])[];
    };
