import type { Logger } from '@aduana/shared';
import type { PgTelemetryStore } from './pg-telemetry-store.js';

/**
 * Deletes the control plane's telemetry past TELEMETRY_RETENTION_DAYS every TELEMETRY_PRUNE_INTERVAL_S, in chunks,
 * off the request path (docs/telemetry.md, "Retention"). Several replicas may prune at once: each delete is idempotent.
 */
export class TelemetryPruner {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<number> | null = null;

  constructor(
    private readonly store: Pick<PgTelemetryStore, 'prune'>,
    private readonly retentionMs: number,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.#timer = setInterval(() => void this.prune(), this.intervalMs).unref();
  }

  /** Prunes now (one run at a time); resolves to the rows deleted. */
  prune(now = Date.now()): Promise<number> {
    this.#running ??= this.store
      .prune(now - this.retentionMs)
      .then((n) => {
        if (n > 0) this.logger.info({ pruned: n }, 'telemetry past its retention pruned');
        return n;
      })
      .catch((err: unknown) => {
        this.logger.error({ err }, 'telemetry prune failed');
        return 0;
      })
      .finally(() => {
        this.#running = null;
      });
    return this.#running;
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.#running;
  }
}
