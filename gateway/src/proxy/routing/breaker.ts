/**
 * A target's (or a credential's) circuit breaker: closed, it lets calls through; after `failures` consecutive failures
 * it opens for `openMs`, and calls skip it; then one trial call is let through (half-open), whose outcome closes it or
 * opens it again. Counts are this process's (each sidecar judges its own upstreams).
 */
export class Breaker {
  #failures = 0;
  #openUntil = 0;
  #trial = false;

  constructor(
    private readonly failures: number,
    private readonly openMs: number,
  ) {}

  /** Whether a call may go now; in half-open state only the first asker gets the trial. */
  allows(now: number): boolean {
    if (this.#openUntil === 0) return true;
    if (now < this.#openUntil || this.#trial) return false;
    this.#trial = true;
    return true;
  }

  /** Open (calls skip it) at `now`. */
  isOpen(now: number): boolean {
    return this.#openUntil !== 0 && (now < this.#openUntil || this.#trial);
  }

  succeeded(): void {
    this.#failures = 0;
    this.#openUntil = 0;
    this.#trial = false;
  }

  /** A failure at `now`; true when it opened the breaker (or opened it again), until `openUntil`. */
  failed(now: number): boolean {
    this.#failures++;
    if (!this.#trial && this.#failures < this.failures) return false;
    this.#openUntil = now + this.openMs;
    this.#trial = false;
    return true;
  }

  /** When the open breaker lets a trial call through (ms, the clock `failed` was given); 0 while it never opened. */
  get openUntil(): number {
    return this.#openUntil;
  }
}
