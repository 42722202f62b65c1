import type { Logger } from '@aduana/shared';
import type { SessionRepository } from '../../storage/repositories.js';
import { PeriodicPrune } from '../../storage/periodic-prune.js';

/** Sessions deleted per statement or transaction: a prune never holds a long write. */
const BATCH = 500;
/** An expired session is kept this long, so its holder is told `token_expired` rather than `unauthenticated`. */
const KEEP_EXPIRED_MS = 86_400_000;

/**
 * Deletes login sessions a day after they expire (docs/authentication.md, "Sessions"), every
 * SESSION_PRUNE_INTERVAL_S, in bounded batches, off the request path.
 */
export class SessionPruner extends PeriodicPrune {
  constructor(sessions: SessionRepository, intervalMs: number, logger: Logger) {
    super({ what: 'expired sessions', intervalMs, logger }, async (now) => {
      const before = new Date(now - KEEP_EXPIRED_MS);
      let total = 0;
      for (;;) {
        const n = await sessions.pruneExpired(before, BATCH);
        total += n;
        if (n < BATCH) return total;
      }
    });
  }
}
