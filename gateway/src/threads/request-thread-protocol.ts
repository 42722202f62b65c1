/** The main thread's control messages to a request thread (its requests travel on the relay's own port). */
export type ToRequestThreadControl = { readonly t: 'close' };

/** A request thread's control messages to the main thread. */
export type FromRequestThread =
  /** Its app is ready: the descriptor the main thread's acceptor hands connections to. */
  | { readonly t: 'ready'; readonly descriptor: number }
  /** Its app closed every socket; the thread ends. */
  | { readonly t: 'closed' };
