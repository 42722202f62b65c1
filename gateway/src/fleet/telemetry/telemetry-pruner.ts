import type { Logger } from '@aduana/shared';
import { PeriodicPrune } from '../../storage/periodic-prune.js';
import type { PgTelemetryStore } from './pg-telemetry-store.js';

/**
 * Deletes the control plane's telemetry past TELEMETRY_RETENTION_DAYS every TELEMETRY_PRUNE_INTERVAL_S, in chunks,
 * off the request path (docs/telemetry.md, "Retention").
 */
export class TelemetryPruner extends PeriodicPrune {
  constructor(store: Pick<PgTelemetryStore, 'prune'>, retentionMs: number, intervalMs: number, logger: Logger) {
    super({ what: 'telemetry past its retention', intervalMs, logger }, (now) => store.prune(now - retentionMs));
  }
}
