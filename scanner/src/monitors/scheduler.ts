import { uuid } from '@aduana/shared';
import type { ScannerStore } from '../storage/scanner-store.js';
import { claimDue, type ClaimedRun } from './monitor-store.js';

export interface SchedulerSettings {
  readonly store: ScannerStore;
  readonly tickMs: number;
  readonly leaseMs: number;
  readonly execute: (claimed: ClaimedRun) => Promise<unknown>;
  readonly onError: (err: unknown) => void;
  /** The service's clock: what is due is decided by it (tests move it). */
  readonly now: () => number;
}

/**
 * The monitor scheduler (docs/scanner.md, "Monitors"): every tick it claims the due monitors in one transaction
 * (see claimDue) and runs each claimed one. Its owner id is new at every start, so a lease left by a process that
 * died is only taken over once it expires. No cron library (croner): a monitor has a cadence in hours, not a cron
 * expression, and when it is due lives in the store, where every scanner process sees it; what is left here is a
 * timer and an overrun guard.
 */
export class MonitorScheduler {
  readonly owner = uuid();
  readonly #settings: SchedulerSettings;
  readonly #running = new Set<Promise<unknown>>();
  #timer: NodeJS.Timeout | undefined;
  #ticking = false;
  #stopped = false;

  constructor(settings: SchedulerSettings) {
    this.#settings = settings;
  }

  start(): void {
    this.#timer = setInterval(() => void this.tick(), this.#settings.tickMs);
    this.#timer.unref();
    void this.tick();
  }

  /** One pass: claim what is due, start it. Skipped while the previous pass is still claiming. */
  async tick(): Promise<void> {
    if (this.#ticking || this.#stopped) return;
    this.#ticking = true;
    try {
      const claimed = await claimDue(this.#settings.store, this.owner, this.#settings.now(), this.#settings.leaseMs);
      for (const c of claimed) {
        const work = this.#settings.execute(c).catch(this.#settings.onError);
        this.#running.add(work);
        void work.finally(() => this.#running.delete(work));
      }
    } catch (err) {
      this.#settings.onError(err);
    } finally {
      this.#ticking = false;
    }
  }

  /** Stops claiming and waits for the runs already started. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    while (this.#running.size > 0 || this.#ticking) await Promise.allSettled([...this.#running, new Promise((r) => setTimeout(r, 5))]);
  }
}
