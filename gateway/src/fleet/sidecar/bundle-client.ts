import type { Dispatcher } from 'undici';
import { backoffMs, Egress, type Logger } from '@aduana/shared';
import type { BundleApplier } from './bundle-applier.js';

export interface BundleClientOptions {
  controlPlaneUrl: string;
  sidecarToken: string;
  /** Seconds the control plane is asked to hold a request open when nothing changed. */
  waitS: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Straight to the control plane, or through the egress proxy (HTTPS_PROXY, NO_PROXY): decided at start (default: straight). */
  egress?: Egress;
}

/** What health and metrics report of the bundle client. */
export interface BundleClientStatus {
  /** The revision in force (0: none yet). */
  revision: number;
  /** When the control plane last answered (200 or 304), ISO; null when it never did in this run. */
  lastSuccess: string | null;
  /** The last failure, until the next success. */
  lastError: string | null;
}

/**
 * A sidecar's long-poll on `GET /v1/fleet/bundle` (docs/fleet.md, "The bundle"): one request open at a time, naming
 * the revision in force; a 200 is applied, a 304 asks again at once, a failure is retried after a capped exponential
 * backoff with jitter (so sidecars that lost the control plane together do not come back together).
 */
export class BundleClient {
  readonly #pool: Dispatcher;
  readonly #origin: string;
  readonly #stop = new AbortController();
  readonly #status: BundleClientStatus;
  #loop: Promise<void> | null = null;

  constructor(
    private readonly opts: BundleClientOptions,
    private readonly applier: BundleApplier,
    private readonly logger: Logger,
  ) {
    this.#origin = new URL(opts.controlPlaneUrl).origin;
    this.#pool = (opts.egress ?? Egress.direct).pool(this.#origin, { connections: 1, headersTimeout: (opts.waitS + 15) * 1000, bodyTimeout: 60_000 });
    this.#status = { revision: applier.current?.revision ?? 0, lastSuccess: null, lastError: null };
  }

  get status(): Readonly<BundleClientStatus> {
    return this.#status;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (!this.#stop.signal.aborted) {
      try {
        await this.#poll();
        failures = 0;
        this.#status.lastSuccess = new Date().toISOString();
        this.#status.lastError = null;
      } catch (err) {
        if (this.#stop.signal.aborted) return;
        failures++;
        this.#status.lastError = err instanceof Error ? err.message : String(err);
        this.logger.warn({ err: this.#status.lastError, failures }, 'bundle request failed; retrying');
        await this.#sleep(backoffMs(failures, { baseMs: this.opts.retryBaseMs, maxMs: this.opts.retryMaxMs, jitter: true }));
      }
    }
  }

  async #poll(): Promise<void> {
    const current = this.applier.current;
    const headers: Record<string, string> = { authorization: `Bearer ${this.opts.sidecarToken}`, accept: 'application/json' };
    // Without a bundle the sidecar names no revision: the control plane answers with the bundle at once.
    if (current) {
      headers['if-none-match'] = `"${current.revision}"`;
      headers['prefer'] = `wait=${this.opts.waitS}`;
    }
    const res = await this.#pool.request({ origin: this.#origin, path: '/v1/fleet/bundle', method: 'GET', headers, signal: this.#stop.signal });
    if (res.statusCode === 304) {
      await res.body.dump();
      return;
    }
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`the control plane answered ${res.statusCode}: ${errorMessage(text)}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new Error('the control plane answered a bundle that is not JSON', { cause: err });
    }
    try {
      const applied = await this.applier.apply(parsed);
      this.#status.revision = applied.revision;
    } catch (err) {
      throw new Error(`bundle refused: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#stop.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#stop.signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Ends the open request and the loop, then the connections. */
  async close(): Promise<void> {
    this.#stop.abort();
    await this.#loop?.catch(() => undefined);
    await this.#pool.close();
  }
}

/** The message of an error envelope, or the start of the text. */
function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') return body.error.message;
  } catch {
    // not JSON: quoted below
  }
  return text.slice(0, 120) || 'no body';
}
