import type { Logger } from '@aduana/shared';
import { PeriodicPrune } from '../storage/periodic-prune.js';
import type { RequestLog } from './request-log.js';

/** Samples deleted per transaction: a prune never holds a long write. */
const BATCH = 500;

/**
 * Deletes request-log samples older than their tenant's retention_days (docs/console.md, "Request log"), every
 * REQUEST_LOG_PRUNE_INTERVAL_S, in bounded batches, off the request path.
 */
export class RequestLogPruner extends PeriodicPrune {
  constructor(log: RequestLog, intervalMs: number, logger: Logger) {
    super({ what: 'request-log samples past their retention', intervalMs, logger }, async (now) => {
      let total = 0;
      for (;;) {
        const n = await log.pruneExpired(now, BATCH);
        total += n;
        if (n < BATCH) return total;
      }
    });
  }
}
