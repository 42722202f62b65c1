export type ProviderStatus = 'ACTIVE' | 'DEGRADED' | 'DISABLED';

/** A send the provider refused for good (a 4xx other than 408/429): retrying would not help, the batch is dropped and counted. */
export class PermanentExportError extends Error {}

export interface ExportQueueOptions<T> {
  /** Names the provider in /status and /metrics. */
  name: string;
  maxItems: number;
  batchMax: number;
  flushMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Sends one batch; throws on failure (PermanentExportError: do not retry). */
  send(batch: readonly T[]): Promise<void>;
  now?: () => number;
}

export interface ExportQueueStats {
  status: ProviderStatus;
  queued: number;
  sent: number;
  failures: number;
  dropped: { queue_full: number; rejected: number; shutdown: number };
  last_error: string | null;
  last_latency_ms: number | null;
}

/**
 * A forwarder's own bounded queue (docs/telemetry.md, "Forwarding"): items wait in memory, go out in batches every
 * `flushMs`, and a failed batch is retried, oldest first, with exponential backoff until the provider takes it, so
 * nothing is lost while the provider is down. Past `maxItems` new items are dropped and counted; a batch the provider
 * refuses for good is dropped and counted. Never awaited by a request: `push` only appends.
 */
export class ExportQueue<T> {
  #items: T[] = [];
  #sending = false;
  #failuresInRow = 0;
  #nextAttempt = 0;
  #timer: NodeJS.Timeout | null = null;
  #stats = { sent: 0, failures: 0, queueFull: 0, rejected: 0, shutdown: 0, lastError: null as string | null, lastLatencyMs: null as number | null };
  #status: ProviderStatus = 'ACTIVE';
  readonly #now: () => number;

  constructor(readonly options: ExportQueueOptions<T>) {
    this.#now = options.now ?? Date.now;
  }

  get name(): string {
    return this.options.name;
  }

  start(): void {
    this.#timer = setInterval(() => void this.drain(), this.options.flushMs).unref();
  }

  push(item: T): void {
    if (this.#items.length >= this.options.maxItems) {
      this.#stats.queueFull++;
      return;
    }
    this.#items.push(item);
  }

  get depth(): number {
    return this.#items.length;
  }

  get status(): ProviderStatus {
    return this.#status;
  }

  stats(): ExportQueueStats {
    const s = this.#stats;
    return {
      status: this.#status,
      queued: this.#items.length,
      sent: s.sent,
      failures: s.failures,
      dropped: { queue_full: s.queueFull, rejected: s.rejected, shutdown: s.shutdown },
      last_error: s.lastError,
      last_latency_ms: s.lastLatencyMs,
    };
  }

  /** Sends what is queued, batch by batch, until empty or a send fails (then waits for its backoff). */
  async drain(): Promise<void> {
    if (this.#sending || this.#items.length === 0 || this.#now() < this.#nextAttempt) return;
    this.#sending = true;
    try {
      while (this.#items.length > 0) {
        const batch = this.#items.slice(0, this.options.batchMax);
        const started = this.#now();
        try {
          await this.options.send(batch);
        } catch (err) {
          this.#stats.failures++;
          this.#stats.lastError = err instanceof Error ? err.message : String(err);
          this.#status = 'DEGRADED';
          if (err instanceof PermanentExportError) {
            this.#items.splice(0, batch.length);
            this.#stats.rejected += batch.length;
            continue;
          }
          this.#failuresInRow++;
          const delay = Math.min(this.options.retryMaxMs, this.options.retryBaseMs * 2 ** Math.min(20, this.#failuresInRow - 1));
          this.#nextAttempt = this.#now() + delay;
          return;
        }
        this.#items.splice(0, batch.length);
        this.#stats.sent += batch.length;
        this.#stats.lastLatencyMs = this.#now() - started;
        this.#failuresInRow = 0;
        this.#nextAttempt = 0;
        this.#status = 'ACTIVE';
      }
    } finally {
      this.#sending = false;
    }
  }

  /**
   * Stops the timer and makes one last attempt when the provider is healthy (bounded by the send's own timeout); what
   * is still queued then is counted as dropped at shutdown.
   */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    if (this.#status === 'ACTIVE') {
      this.#nextAttempt = 0;
      await this.drain().catch(() => undefined);
    }
    this.#stats.shutdown += this.#items.length;
    this.#items = [];
  }
}
