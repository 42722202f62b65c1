import type { Dispatcher } from 'undici';
import { backoffMs, request, type Logger } from '@aduana/shared';

/** What `/health` says of a sidecar's periodic sender. */
export interface ControlPlaneLoopStatus {
  last_success: string | null;
  last_error: string | null;
  /** Consecutive failed rounds (0 once one succeeds). */
  failures: number;
}

export interface ControlPlaneLoopOptions {
  /** What the loop sends, for its log lines ("agent report", "telemetry batch"). */
  what: string;
  /** Path at the control plane, e.g. /v1/fleet/agents. */
  path: string;
  controlPlaneUrl: string;
  sidecarToken: string;
  /** The egress proxy's dispatcher, when one is set (default: straight to the control plane). */
  dispatcher?: Dispatcher | undefined;
  intervalMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  timeoutMs: number;
  logger: Logger;
}

/**
 * A sidecar's periodic sender to the control plane (agent reports, telemetry; docs/fleet.md): runs a round every
 * `intervalMs`, after a failed round again with capped backoff and jitter, never two rounds at once, and stops cleanly
 * (a request in flight is aborted). A round throws to be retried; what it sent stays its own business.
 */
export class ControlPlaneLoop {
  readonly status: ControlPlaneLoopStatus = { last_success: null, last_error: null, failures: 0 };
  readonly #endpoint: string;
  readonly #abort = new AbortController();
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #closed = false;

  constructor(
    private readonly o: ControlPlaneLoopOptions,
    private readonly round: () => Promise<unknown>,
    private readonly onSuccess: () => void = () => {},
  ) {
    this.#endpoint = new URL(o.path, o.controlPlaneUrl).toString();
  }

  start(): void {
    this.#schedule(this.o.intervalMs);
  }

  /** Stops the loop and waits for a round in flight to end (its request aborted). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#abort.abort();
    await this.#running?.catch(() => {});
  }

  /** POSTs a JSON body with the sidecar token; answers the status and the answer's text. */
  async post(body: string): Promise<{ status: number; text: string }> {
    const res = await request(this.#endpoint, {
      dispatcher: this.o.dispatcher,
      method: 'POST',
      headers: { authorization: `Bearer ${this.o.sidecarToken}`, 'content-type': 'application/json' },
      body,
      headersTimeout: this.o.timeoutMs,
      bodyTimeout: this.o.timeoutMs,
      signal: this.#abort.signal,
    });
    return { status: res.statusCode, text: await res.body.text() };
  }

  /** The error a round throws for an answer other than the one it wanted. */
  refused(status: number, text: string): Error {
    return new Error(`control plane answered ${status} to a ${this.o.what}: ${text.slice(0, 300)}`);
  }

  #schedule(delayMs: number): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#run();
    }, delayMs);
    this.#timer.unref();
  }

  async #run(): Promise<void> {
    try {
      await this.round();
      this.status.failures = 0;
      this.status.last_success = new Date().toISOString();
      this.onSuccess();
      this.#schedule(this.o.intervalMs);
    } catch (err) {
      if (this.#closed) return;
      this.status.failures++;
      this.status.last_error = err instanceof Error ? err.message : String(err);
      this.o.logger.warn({ err }, `${this.o.what} to the control plane failed; retrying`);
      this.#schedule(Math.max(backoffMs(this.status.failures, { baseMs: this.o.backoffBaseMs, maxMs: this.o.backoffMaxMs, jitter: true }), Math.min(this.o.intervalMs, this.o.backoffBaseMs)));
    }
  }
}
