import type { Database } from 'lmdb';
import { GatewayError } from '../errors.js';
import type { GatewayConfig } from '../config.js';

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

/**
 * Failed logins counted per client address and per e-mail address in fixed windows, in LMDB (the counters database,
 * keys ['login_failures', 'addr' | 'acct', value]), so a restart does not reset them (docs/authentication.md). Once
 * either count reaches its limit, every login for that address or account is refused with 429 until the window ends,
 * right password included: answering only wrong guesses with 429 would tell a guesser which guess was right.
 */
export class LoginFailures {
  constructor(
    private readonly counters: Database,
    private readonly limits: LoginFailureLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws 429 (with Retry-After) while the address or the account is over its limit. */
  assertAllowed(address: string, email: string): void {
    const now = this.now();
    for (const [key, limit] of this.#keys(address, email)) {
      const w = this.counters.get(key) as Window | undefined;
      if (w && w.reset_at > now && w.n >= limit) {
        const retry = Math.max(1, Math.ceil((w.reset_at - now) / 1000));
        throw new GatewayError('login_throttled', `too many failed logins; retry in ${retry} s`, '', { 'retry-after': String(retry) });
      }
    }
  }

  async recordFailure(address: string, email: string): Promise<void> {
    const now = this.now();
    await this.counters.transaction(() => {
      for (const [key] of this.#keys(address, email)) {
        const w = this.counters.get(key) as Window | undefined;
        const next: Window = !w || w.reset_at <= now ? { n: 1, reset_at: now + this.limits.windowMs } : { n: w.n + 1, reset_at: w.reset_at };
        this.counters.put(key, next);
      }
    });
  }

  /** A successful login clears the account's count (not the address's: one good password does not buy more guesses). */
  async recordSuccess(email: string): Promise<void> {
    await this.counters.remove(['login_failures', 'acct', email]);
  }

  #keys(address: string, email: string): [string[], number][] {
    return [
      [['login_failures', 'addr', address], this.limits.perAddress],
      [['login_failures', 'acct', email], this.limits.perAccount],
    ];
  }
}
