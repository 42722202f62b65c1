/**
 * Messages between a request thread and the main thread for a request the request thread hands over (relays): the
 * main thread answers it with the same route handlers it runs for its own connections, and the request thread writes
 * that answer on its socket. One MessagePort per request thread carries them.
 */

/** A route both threads registered, in the same order: method, pattern and how many path parameters it has. */
export interface RelayedRoute {
  readonly method: 'get' | 'post' | 'put' | 'delete' | 'patch' | 'any';
  readonly pattern: string;
  readonly paramCount: number;
}

/** Request thread → main thread. */
export type ToOwner =
  /** A request's head: `route` indexes the routes both threads registered. Headers as uWS gives them (lower-case names). */
  | {
      readonly t: 'head';
      readonly id: number;
      readonly route: number;
      readonly url: string;
      readonly query: string;
      readonly params: readonly string[];
      readonly headers: readonly string[];
      readonly remote: string;
    }
  /** A chunk of its body (a copy, transferred: uWS's chunk is valid only in its callback). */
  | { readonly t: 'data'; readonly id: number; readonly chunk: ArrayBuffer; readonly last: boolean }
  /** The client went away. */
  | { readonly t: 'aborted'; readonly id: number }
  /** The socket took everything written so far (after a write that had to wait). */
  | { readonly t: 'drained'; readonly id: number };

/** One write on the answer, in the order the handler made them (a corked group goes as one message). */
export type AnswerOp =
  | readonly ['status', string]
  | readonly ['header', string, string]
  | readonly ['write', string | Uint8Array]
  | readonly ['end', string | Uint8Array, boolean]
  | readonly ['endWithoutBody'];

/** Main thread → request thread. */
export type ToRequestThread = { readonly t: 'answer'; readonly id: number; readonly ops: readonly AnswerOp[] };
