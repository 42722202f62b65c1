import type { EventsLedger } from '../index.js';
import type { PruneResult } from './prune.js';

export interface RetentionOptions {
  /** Entries older than this many days may be pruned (LEDGER_RETENTION_DAYS); 0 keeps everything. */
  days: number;
  /** How often every tenant is looked at (LEDGER_PRUNE_INTERVAL_S), ms. */
  intervalMs: number;
  /**
   * Seq through which a tenant's entries left this ledger: by default its export mark; a sidecar passes its control
   * plane's acknowledged cursor (the shipper resumes from it, so nothing past it may go).
   */
  releasedThrough?: (tenantId: string) => number;
  /** Entries per event-loop turn and per delete transaction (default 1,000). */
  chunk?: number;
  now?: () => number;
  onPruned?: (result: PruneResult) => void;
  /** A tenant that cannot be pruned (its prefix does not verify, a write failed): reported, the others go on. */
  onError?: (err: unknown, tenantId: string) => void;
}

const DAY_MS = 86_400_000;

/**
 * Ledger retention's schedule (docs/ledger.md, "Retention"): every interval, each tenant is pruned through what its
 * gates allow, one tenant after another, in chunks that yield to the event loop. Nothing of it runs on an append.
 */
export class LedgerRetention {
  readonly #ledger: EventsLedger;
  readonly #o: RetentionOptions;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<PruneResult[]> | null = null;
  #closed = false;

  constructor(ledger: EventsLedger, options: RetentionOptions) {
    this.#ledger = ledger;
    this.#o = options;
  }

  get enabled(): boolean {
    return this.#o.days > 0;
  }

  start(): void {
    if (!this.enabled || this.#timer) return;
    this.#timer = setInterval(() => void this.runOnce(), this.#o.intervalMs).unref();
  }

  /** Prunes every tenant now (one run at a time); resolves with what each run did. Nothing when retention is off. */
  runOnce(): Promise<PruneResult[]> {
    if (!this.enabled || this.#closed) return Promise.resolve([]);
    this.#running ??= this.#run().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  async #run(): Promise<PruneResult[]> {
    const results: PruneResult[] = [];
    const before = new Date((this.#o.now?.() ?? Date.now()) - this.#o.days * DAY_MS);
    const released = this.#o.releasedThrough ?? ((tenantId: string) => this.#ledger.exportedThrough(tenantId));
    for (const tenantId of this.#ledger.tenants()) {
      if (this.#closed) break;
      try {
        const result = await this.#ledger.prune(tenantId, { before, releasedThrough: released(tenantId), ...(this.#o.chunk ? { chunk: this.#o.chunk } : {}) });
        results.push(result);
        if (result.removed > 0) this.#o.onPruned?.(result);
      } catch (err) {
        this.#o.onError?.(err, tenantId);
      }
    }
    return results;
  }
}
