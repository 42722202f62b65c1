import type { ChangeFeed } from '../change-feed.js';

/**
 * A ChangeFeed inside one process, bumped explicitly by whoever changes what a bundle carries. For tests and for a
 * control plane on one process; the PostgreSQL one is bumped by triggers and heard through NOTIFY.
 */
export class InProcessChangeFeed implements ChangeFeed {
  #revision: number;
  readonly #waiters = new Set<(revision: number) => void>();

  constructor(initial = 0) {
    this.#revision = initial;
  }

  revision(): number {
    return this.#revision;
  }

  /** Requests waiting for a change right now (a client that went away is no longer counted). */
  waiting(): number {
    return this.#waiters.size;
  }

  /** Moves to the next revision and wakes every waiter. */
  bump(): number {
    this.#revision++;
    for (const wake of [...this.#waiters]) wake(this.#revision);
    return this.#revision;
  }

  waitForChange(after: number, timeoutMs: number, signal?: AbortSignal): Promise<number> {
    if (this.#revision > after || timeoutMs <= 0 || signal?.aborted) return Promise.resolve(this.#revision);
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        signal?.removeEventListener('abort', done);
        resolve(this.#revision);
      };
      const wake = (revision: number): void => {
        if (revision > after) done();
      };
      const timer = setTimeout(done, timeoutMs);
      this.#waiters.add(wake);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  async close(): Promise<void> {
    for (const wake of [...this.#waiters]) wake(Number.MAX_SAFE_INTEGER);
  }
}
