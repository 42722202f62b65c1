import { setTimeout as sleep } from 'node:timers/promises';
import type { X509Certificate } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { backoffMs } from '@aduana/shared/core';
import { checkpointSigningInput, type Checkpoint } from './checkpoint.js';
import type { LedgerDbs } from '../storage/store.js';

export interface AnchorOptions {
  /** Delay before the first retry of a failed request; doubles per failure (default 500 ms). */
  baseDelayMs?: number;
  /** Longest delay between retries (default 5 min): the TSA is retried for as long as it takes. */
  maxDelayMs?: number;
  /** Time allowed for one request (default 10 s). */
  timeoutMs?: number;
  /** How often the queue is read for checkpoints other processes queued (the CLI's exports; default 60 s). */
  pollMs?: number;
  /** The egress proxy's dispatcher, when one is set (default: straight to the TSA). */
  dispatcher?: Dispatcher | undefined;
  /** Told after each request to the TSA, answered or failed: `stats` may have changed (the writer thread reports them). */
  onProgress?: () => void;
}

/** `GET /v1/telemetry/status` `anchoring`: DEGRADED while the last request to the TSA failed. */
export interface AnchorStats {
  status: 'ACTIVE' | 'DEGRADED';
  /** Checkpoints waiting for a token. */
  pending: number;
  /** Tokens received since start. */
  anchored: number;
  /** Failed requests since start (each is retried). */
  failed_attempts: number;
  last_error_at: string | null;
}

/**
 * Time-stamps checkpoints with an RFC 3161 TSA, off every request path: the checkpointer only writes the checkpoint's
 * key into `ledger_anchor_queue` (durable, so a restart or a long outage loses nothing) and wakes this loop. One
 * request at a time, oldest key first; a token is checked (imprint, nonce, signature, certificate) before it is stored,
 * and the key leaves the queue in the same write. A failure is reported through `onError` and retried with
 * exponential backoff, for as long as it takes: a checkpoint is never dropped from the queue.
 */
export class AnchorQueue {
  readonly #dbs: LedgerDbs;
  readonly #url: string;
  readonly #pinned: X509Certificate | null;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #timeoutMs: number;
  readonly #dispatcher: Dispatcher | undefined;
  readonly #onError: (err: unknown) => void;
  readonly #onProgress: () => void;
  readonly #abort = new AbortController();
  readonly #poll: NodeJS.Timeout;
  #running: Promise<void> | null = null;
  #again = false;
  #closed = false;
  #anchored = 0;
  #failures = 0;
  #lastFailed = false;
  #lastErrorAt: string | null = null;

  constructor(dbs: LedgerDbs, url: string, pinned: X509Certificate | null, options: AnchorOptions & { onError?: (err: unknown) => void } = {}) {
    this.#dbs = dbs;
    this.#url = new URL(url).href;
    this.#pinned = pinned;
    this.#baseDelayMs = options.baseDelayMs ?? 500;
    this.#maxDelayMs = options.maxDelayMs ?? 300_000;
    this.#dispatcher = options.dispatcher;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#onError = options.onError ?? (() => {});
    this.#onProgress = options.onProgress ?? (() => {});
    this.#poll = setInterval(() => this.wake(), options.pollMs ?? 60_000);
    this.#poll.unref();
    this.wake(); // checkpoints a previous run left queued
  }

  get stats(): AnchorStats {
    return {
      status: this.#lastFailed ? 'DEGRADED' : 'ACTIVE',
      pending: this.#dbs.anchorQueue.getKeysCount(),
      anchored: this.#anchored,
      failed_attempts: this.#failures,
      last_error_at: this.#lastErrorAt,
    };
  }

  /** Looks at the queue now (after a checkpoint was queued): starts the sender, or has it look again when it is done. */
  wake(): void {
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#drain().finally(() => {
      this.#running = null;
      if (this.#again && !this.#closed) {
        this.#again = false;
        this.wake();
      }
    });
  }

  /** Stops sending; what is queued stays queued in LMDB for the next start. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#poll);
    this.#abort.abort();
    await this.#running;
  }

  async #drain(): Promise<void> {
    let failedInRow = 0;
    for (;;) {
      this.#again = false;
      const key = this.#oldest();
      if (key === undefined || this.#closed) return;
      const cp = this.#dbs.checkpoints.get(key);
      if (cp === undefined) {
        // Queued in the same write batch as its checkpoint; a checkpoint lost to a crash is signed anew, and queued anew.
        await this.#dbs.anchorQueue.remove(key);
        continue;
      }
      const anchored = await this.#anchor(key, cp);
      if (this.#closed) return;
      this.#onProgress();
      if (anchored) {
        failedInRow = 0;
        continue;
      }
      if (this.#closed) return;
      const delay = backoffMs(++failedInRow, { baseMs: this.#baseDelayMs, maxMs: this.#maxDelayMs, jitter: false });
      await sleep(delay, undefined, { signal: this.#abort.signal, ref: false }).catch(() => {});
    }
  }

  #oldest(): [string, number] | undefined {
    for (const key of this.#dbs.anchorQueue.getKeys({ limit: 1 })) return key as [string, number];
    return undefined;
  }

  async #anchor(key: [string, number], cp: Checkpoint): Promise<boolean> {
    try {
      // Loaded with the first request: the HTTP client stays out of a writer thread whose tenants are never time-stamped.
      const { requestTimestamp } = await import('./tsa-client.js');
      const anchor = await requestTimestamp(this.#url, checkpointSigningInput(cp), {
        pinned: this.#pinned,
        dispatcher: this.#dispatcher,
        signal: AbortSignal.any([this.#abort.signal, AbortSignal.timeout(this.#timeoutMs)]),
      });
      await this.#dbs.root.transaction(() => {
        this.#dbs.anchors.put(key, anchor);
        this.#dbs.anchorQueue.remove(key);
      });
      this.#anchored++;
      this.#lastFailed = false;
      return true;
    } catch (err) {
      if (this.#closed) return false;
      this.#failures++;
      this.#lastFailed = true;
      this.#lastErrorAt = new Date().toISOString();
      this.#onError(new Error(`time-stamping checkpoint ${cp.tenant_id}@${cp.tree_size} failed (retried): ${(err as Error).message}`, { cause: err }));
      return false;
    }
  }
}
