import type { Logger } from '@aduana/shared';
import type { SessionRepository } from '../storage/repositories.js';

/** Sessions deleted per statement or transaction: a prune never holds a long write. */
const BATCH = 500;
/** An expired session is kept this long, so its holder is told `token_expired` rather than `unauthenticated`. */
const KEEP_EXPIRED_MS = 86_400_000;

/**
 * Deletes login sessions a day after they expire (docs/authentication.md, "Sessions"), every
 * SESSION_PRUNE_INTERVAL_S, in bounded batches, off the request path. One replica or many: each delete is
 * idempotent.
 */
export class SessionPruner {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<number> | null = null;

  constructor(
    private readonly sessions: SessionRepository,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.#timer = setInterval(() => void this.prune(), this.intervalMs).unref();
  }

  /** Prunes now (one run at a time); resolves to how many sessions went. */
  prune(now = Date.now()): Promise<number> {
    this.#running ??= this.#prune(new Date(now - KEEP_EXPIRED_MS))
      .catch((err: unknown) => {
        this.logger.error({ err }, 'session prune failed');
        return 0;
      })
      .finally(() => {
        this.#running = null;
      });
    return this.#running;
  }

  async #prune(before: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.sessions.pruneExpired(before, BATCH);
      total += n;
      if (n < BATCH) break;
    }
    if (total > 0) this.logger.info({ pruned: total }, 'expired sessions pruned');
    return total;
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }
}
