import type { DecisionRecord } from '../governance/decisions/decision-store.js';
import type { StoredAgent } from '../agents/agent-state.js';
import type { RelayedRoute } from './relay/relay-protocol.js';

/**
 * What the main thread tells request threads that judge requests themselves, so that their caches say what the main
 * thread's say; each is applied before it is acknowledged, and the admin call that caused it is answered only after
 * every thread acknowledged it.
 */
export type ThreadNotice =
  /** The tenant's policies changed: its compiled sets are dropped (compiled again on the next request). */
  | { readonly t: 'policies'; readonly tenantId: string }
  /** The tenant's plan changed: read again. */
  | { readonly t: 'plan'; readonly tenantId: string }
  /** A token was revoked or rotated, a user disabled: cached principals stop being used. */
  | { readonly t: 'credentials' }
  /** An agent was registered, or its profile changed (suspended, pack, risk budget). */
  | { readonly t: 'agent'; readonly agent: StoredAgent }
  /** The tenant's request-log settings changed: read again (whether and how often its calls are sampled). */
  | { readonly t: 'request-log'; readonly tenantId: string };

/** A decision a request thread made, for the main thread's observers (telemetry, agents' last contact and risk). */
export interface ObservedDecision {
  readonly d: DecisionRecord;
  readonly latencyMs: number;
  readonly outcome: string | null;
  readonly costBrl: number;
}

/** The main thread's control messages to a request thread (its relayed requests travel on the relay's own port). */
export type ToRequestThreadControl =
  /** The port's routes, once the main thread registered them all: the thread builds its app and answers 'ready'. */
  | { readonly t: 'routes'; readonly routes: readonly RelayedRoute[] }
  | { readonly t: 'close' }
  | { readonly t: 'notice'; readonly n: number; readonly notice: ThreadNotice }
  /** Answer once every ledger and decision write this thread handed over so far is committed. */
  | { readonly t: 'barrier'; readonly n: number };

/** A request thread's control messages to the main thread. */
export type FromRequestThread =
  /** Its app is ready: the descriptor the main thread's acceptor hands connections to. */
  | { readonly t: 'ready'; readonly descriptor: number }
  /** Its app closed every socket; the thread ends. */
  | { readonly t: 'closed' }
  /** Notice or barrier `n` is done. */
  | { readonly t: 'ack'; readonly n: number }
  /**
   * What its requests did in one turn that the main thread keeps: decisions for the observers, answers' latencies
   * (server, seconds), its ledger entries' times from queued to flushed (seconds).
   */
  | {
      readonly t: 'observed';
      readonly decisions: readonly ObservedDecision[];
      readonly answered: readonly (readonly [string, number])[];
      readonly appended: readonly number[];
    };
