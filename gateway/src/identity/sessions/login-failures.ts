import type { Database } from 'lmdb';
import { GatewayError } from '../../errors.js';
import type { GatewayConfig } from '../../config.js';

interface Window {
  n: number;
  /** Epoch ms at which the count starts over. */
  reset_at: number;
}

/** The failed-login limits from the settings. */
export function loginFailureLimits(config: GatewayConfig): LoginFailureLimits {
  return { perAddress: config.loginFailuresPerAddress, perAccount: config.loginFailuresPerAccount, windowMs: config.loginFailureWindowS * 1000 };
}

export interface LoginFailureLimits {
  perAddress: number;
  perAccount: number;
  windowMs: number;
}

/** One login attempt counted by `reserve`, to be handed back to `succeeded` when its password was right. */
export interface ReservedAttempt {
  readonly address: string;
  readonly email: string;
  /** The address window the attempt was counted in: a refund never reaches into a later one. */
  readonly addressResetAt: number;
}

/**
 * Failed logins counted per client address and per e-mail address in fixed windows, in LMDB (the counters database,
 * keys ['login_failures', 'addr' | 'acct', value]), so a restart does not reset them (docs/authentication.md). Once
 * either count reaches its limit, every login for that address or account is refused with 429 until the window ends,
 * right password included: answering only wrong guesses with 429 would tell a guesser which guess was right.
 *
 * Every attempt is counted as a failure before its password is checked, and the count given back when it was right:
 * counted after the check, attempts sent at once would all pass the limit before the first was counted.
 */
export class LoginFailures {
  constructor(
    private readonly counters: Database,
    private readonly limits: LoginFailureLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws 429 (with Retry-After) while the address or the account is over its limit. Reads only: a cheap refusal. */
  assertAllowed(address: string, email: string): void {
    const now = this.now();
    for (const [key, limit] of this.#keys(address, email)) {
      const retry = this.#retryAfterS(this.counters.get(key) as Window | undefined, limit, now);
      if (retry > 0) throw throttled(retry);
    }
  }

  /**
   * Counts the attempt against both limits in one write transaction (transactions run one after another, so two
   * attempts never both take the last try), or throws 429 with nothing counted when either is already at its limit.
   */
  async reserve(address: string, email: string): Promise<ReservedAttempt> {
    const now = this.now();
    const keys = this.#keys(address, email);
    const outcome = await this.counters.transaction((): { retryS: number } | { addressResetAt: number } => {
      const windows = keys.map(([key, limit]) => ({ key, limit, w: this.counters.get(key) as Window | undefined }));
      for (const { w, limit } of windows) {
        const retryS = this.#retryAfterS(w, limit, now);
        if (retryS > 0) return { retryS };
      }
      let addressResetAt = 0;
      for (const { key, w } of windows) {
        const next: Window = !w || w.reset_at <= now ? { n: 1, reset_at: now + this.limits.windowMs } : { n: w.n + 1, reset_at: w.reset_at };
        this.counters.put(key, next);
        if (addressResetAt === 0) addressResetAt = next.reset_at;
      }
      return { addressResetAt };
    });
    if ('retryS' in outcome) throw throttled(outcome.retryS);
    return { address, email, addressResetAt: outcome.addressResetAt };
  }

  /**
   * The attempt's password was right: its count is taken back from the address, and the account's count is cleared
   * (not the address's: one good password does not buy more guesses).
   */
  async succeeded(attempt: ReservedAttempt): Promise<void> {
    const [[addressKey], [accountKey]] = this.#keys(attempt.address, attempt.email) as [[string[], number], [string[], number]];
    await this.counters.transaction(() => {
      const w = this.counters.get(addressKey) as Window | undefined;
      if (w && w.reset_at === attempt.addressResetAt && w.n > 0) this.counters.put(addressKey, { n: w.n - 1, reset_at: w.reset_at });
      this.counters.remove(accountKey);
    });
  }

  /** Seconds until the window ends when it is at its limit, else 0. */
  #retryAfterS(w: Window | undefined, limit: number, now: number): number {
    if (!w || w.reset_at <= now || w.n < limit) return 0;
    return Math.max(1, Math.ceil((w.reset_at - now) / 1000));
  }

  /** The address's key first, then the account's. */
  #keys(address: string, email: string): [string[], number][] {
    return [
      [['login_failures', 'addr', address], this.limits.perAddress],
      [['login_failures', 'acct', email], this.limits.perAccount],
    ];
  }
}

function throttled(retryS: number): GatewayError {
  return new GatewayError('login_throttled', `too many failed logins; retry in ${retryS} s`, '', { 'retry-after': String(retryS) });
}
