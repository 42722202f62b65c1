import { request } from '@aduana/shared';
import type { Checkpoint } from './checkpoint.js';

export interface AnchorOptions {
  /** Checkpoints waiting at most; past it the oldest is dropped (and counted). */
  maxQueue?: number;
  /** Attempts per checkpoint, the first included. */
  maxAttempts?: number;
  /** Delay before the first retry; doubles each time. */
  baseDelayMs?: number;
  timeoutMs?: number;
  onError?: (err: unknown) => void;
}

export interface AnchorStats {
  queued: number;
  sent: number;
  failed: number;
  dropped: number;
}

/**
 * POSTs each checkpoint as JSON to ANCHOR_URL in the background (stands in for anchoring checkpoints on a public chain).
 * One sender at a time, a bounded queue, retries with exponential backoff; it never blocks an append, and a failure
 * is only counted and reported through `onError`.
 */
export class AnchorQueue {
  readonly #url: string;
  readonly #queue: Checkpoint[] = [];
  readonly #maxQueue: number;
  readonly #maxAttempts: number;
  readonly #baseDelayMs: number;
  readonly #timeoutMs: number;
  readonly #onError: (err: unknown) => void;
  readonly #abort = new AbortController();
  #running: Promise<void> | null = null;
  #closed = false;
  readonly stats: AnchorStats = { queued: 0, sent: 0, failed: 0, dropped: 0 };

  constructor(url: string, options: AnchorOptions = {}) {
    this.#url = new URL(url).href;
    this.#maxQueue = options.maxQueue ?? 1000;
    this.#maxAttempts = options.maxAttempts ?? 5;
    this.#baseDelayMs = options.baseDelayMs ?? 500;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#onError = options.onError ?? (() => {});
  }

  enqueue(cp: Checkpoint): void {
    if (this.#closed) return;
    if (this.#queue.length >= this.#maxQueue) {
      this.#queue.shift();
      this.stats.dropped++;
    }
    this.#queue.push(cp);
    this.stats.queued = this.#queue.length;
    this.#running ??= this.#drain();
  }

  /** Resolves once the queue is empty (tests), or at once when nothing is running. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /** Stops sending; queued checkpoints stay stored in LMDB, only their anchoring is abandoned. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#queue.length = 0;
    this.#abort.abort();
    await this.#running?.catch(() => {});
  }

  async #drain(): Promise<void> {
    try {
      for (let cp = this.#queue.shift(); cp !== undefined && !this.#closed; cp = this.#queue.shift()) {
        this.stats.queued = this.#queue.length;
        await this.#send(cp);
      }
    } finally {
      // In the same step that saw the queue empty: an enqueue can never slip in between and find a sender that is
      // about to stop.
      this.#running = null;
    }
  }

  async #send(cp: Checkpoint): Promise<void> {
    const body = JSON.stringify(cp);
    for (let attempt = 1; attempt <= this.#maxAttempts && !this.#closed; attempt++) {
      try {
        const res = await request(this.#url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.any([this.#abort.signal, AbortSignal.timeout(this.#timeoutMs)]),
        });
        await res.body.dump();
        if (res.statusCode >= 200 && res.statusCode < 300) {
          this.stats.sent++;
          return;
        }
        this.#onError(new Error(`anchor answered ${res.statusCode} for ${cp.tenant_id}@${cp.tree_size}`));
      } catch (err) {
        if (this.#closed) return;
        this.#onError(err);
      }
      if (attempt < this.#maxAttempts) await this.#sleep(this.#baseDelayMs * 2 ** (attempt - 1));
    }
    if (!this.#closed) this.stats.failed++;
  }

  #sleep(ms: number): Promise<void> {
    const signal = this.#abort.signal;
    return new Promise((resolve) => {
      const onAbort = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      timer.unref();
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
