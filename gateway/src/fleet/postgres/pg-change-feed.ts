import type pg from 'pg';
import type { ChangeFeed } from '../change-feed.js';

interface Waiter {
  after: number;
  resolve: (revision: number) => void;
}

/**
 * The fleet revision on PostgreSQL: the one-row fleet_revision counter, bumped by triggers in each change's own
 * transaction and announced on aduana_bundle (the mirror's listener hands the announcements here). Re-read after the
 * listener reconnects, since announcements sent while it was away are lost.
 */
export class PgChangeFeed implements ChangeFeed {
  #revision = 0;
  readonly #waiters = new Set<Waiter>();

  constructor(private readonly pool: pg.Pool) {}

  revision(): number {
    return this.#revision;
  }

  /** A revision heard or read: the feed only ever moves forward. */
  observe(revision: number): void {
    if (revision <= this.#revision) return;
    this.#revision = revision;
    for (const w of this.#waiters) {
      if (revision > w.after) {
        this.#waiters.delete(w);
        w.resolve(revision);
      }
    }
  }

  async reload(): Promise<void> {
    const { rows } = await this.pool.query<{ revision: string }>('SELECT revision FROM fleet_revision');
    if (rows[0]) this.observe(Number(rows[0].revision));
  }

  waitForChange(after: number, timeoutMs: number, signal?: AbortSignal): Promise<number> {
    if (this.#revision > after || signal?.aborted) return Promise.resolve(this.#revision);
    return new Promise((resolve) => {
      const finish = (revision: number) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#waiters.delete(waiter);
        resolve(revision);
      };
      const waiter: Waiter = { after, resolve: finish };
      const timer = setTimeout(() => finish(this.#revision), timeoutMs);
      const onAbort = () => finish(this.#revision);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(waiter);
    });
  }

  async close(): Promise<void> {
    for (const w of [...this.#waiters]) w.resolve(this.#revision);
    this.#waiters.clear();
  }
}
