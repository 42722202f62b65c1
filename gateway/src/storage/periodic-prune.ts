import type { Logger } from '@aduana/shared';

export interface PeriodicPruneOptions {
  /** What goes, for the log lines ("expired sessions", "telemetry past its retention"). */
  what: string;
  intervalMs: number;
  logger: Logger;
}

/**
 * Deleting what has expired every interval, off the request path (sessions, the control plane's telemetry): one run
 * at a time, a failed run logged and tried again at the next interval, close() waiting for a run in flight. Each
 * run's deletes are idempotent, so several replicas may prune one database at once.
 */
export class PeriodicPrune {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<number> | null = null;

  constructor(
    private readonly o: PeriodicPruneOptions,
    /** Deletes what `now` makes expired; resolves to how much went. */
    private readonly work: (now: number) => Promise<number>,
  ) {}

  start(): void {
    this.#timer = setInterval(() => void this.prune(), this.o.intervalMs).unref();
  }

  /** Prunes now (one run at a time); resolves to how much went. */
  prune(now = Date.now()): Promise<number> {
    this.#running ??= this.work(now)
      .then((n) => {
        if (n > 0) this.o.logger.info({ pruned: n }, `${this.o.what} pruned`);
        return n;
      })
      .catch((err: unknown) => {
        this.o.logger.error({ err }, `pruning ${this.o.what} failed`);
        return 0;
      })
      .finally(() => {
        this.#running = null;
      });
    return this.#running;
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }
}
