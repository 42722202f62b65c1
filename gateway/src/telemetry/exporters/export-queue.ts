import { backoffMs } from '@aduana/shared';

export type ProviderStatus = 'ACTIVE' | 'DEGRADED' | 'DISABLED';

/** The characters of a flat record's keys and string values (8 for another value): an item's size in its queue. */
export function textSize(record: Readonly<Record<string, string | number | boolean>>): number {
  let n = 0;
  for (const k in record) {
    const v = record[k];
    n += k.length + (typeof v === 'string' ? v.length : 8);
  }
  return n;
}

/** A send the provider refused for good (a 4xx other than 408/429): retrying would not help, the batch is dropped and counted. */
export class PermanentExportError extends Error {}

export interface ExportQueueOptions<T> {
  /** Names the provider in /status and /metrics. */
  name: string;
  maxItems: number;
  /** Most bytes held, each item counted by `sizeOf` (TELEMETRY_QUEUE_MAX_BYTES). */
  maxBytes: number;
  /** An item's size: its bytes, or for structured items the characters of their text (approximately its memory). */
  sizeOf(item: T): number;
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
  queued_bytes: number;
  sent: number;
  failures: number;
  dropped: { queue_full: number; rejected: number; shutdown: number };
  last_error: string | null;
  last_latency_ms: number | null;
}

/**
 * A forwarder's own bounded queue (docs/telemetry.md, "Forwarding"): items wait in memory, go out in batches every
 * `flushMs`, and a failed batch is retried, oldest first, with exponential backoff until the provider takes it, so
 * nothing is lost while the provider is down. Past `maxItems` or `maxBytes` new items are dropped and counted (by
 * items alone, a queue of 16 KiB log messages or of large metric payloads could hold gigabytes while a provider is
 * down); a batch the provider refuses for good is dropped and counted. Never awaited by a request: `push` only
 * appends.
 */
export class ExportQueue<T> {
  #items: T[] = [];
  /** Each queued item's size, in queue order, and their sum. */
  #sizes: number[] = [];
  #bytes = 0;
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
    const size = this.options.sizeOf(item);
    if (this.#items.length >= this.options.maxItems || this.#bytes + size > this.options.maxBytes) {
      this.#stats.queueFull++;
      return;
    }
    this.#items.push(item);
    this.#sizes.push(size);
    this.#bytes += size;
  }

  /** Removes the first `n` items (sent, or refused for good). */
  #shift(n: number): void {
    this.#items.splice(0, n);
    for (const size of this.#sizes.splice(0, n)) this.#bytes -= size;
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
      queued_bytes: this.#bytes,
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
            this.#shift(batch.length);
            this.#stats.rejected += batch.length;
            continue;
          }
          this.#failuresInRow++;
          const delay = backoffMs(this.#failuresInRow, { baseMs: this.options.retryBaseMs, maxMs: this.options.retryMaxMs, jitter: false });
          this.#nextAttempt = this.#now() + delay;
          return;
        }
        this.#shift(batch.length);
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
    this.#shift(this.#items.length);
  }
}
