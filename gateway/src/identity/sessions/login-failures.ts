import type { LRUCache } from 'lru-cache';
import { growingLru } from '@aduana/shared';
import { GatewayError } from '../../errors.js';
import type { GatewayConfig } from '../../config.js';
import { clientSource } from '../../platform/client-source.js';

/** The failed-login limits from the settings. */
export function loginFailureLimits(config: GatewayConfig): LoginFailureLimits {
  return {
    perSource: config.loginFailuresPerAddress,
    perAccount: config.loginFailuresPerAccount,
    windowMs: config.loginFailureWindowS * 1000,
    slowdownMaxMs: config.loginSlowdownMaxS * 1000,
  };
}

export interface LoginFailureLimits {
  /** Failures from one source, over every account (LOGIN_FAILURES_PER_ADDRESS). */
  perSource: number;
  /** Failures on one account from one source, from one device cookie, and from strangers before the slow-down. */
  perAccount: number;
  windowMs: number;
  /** The longest wait the slow-down puts between two strangers' attempts on an account. */
  slowdownMaxMs: number;
}

/** Keys each table keeps (the least recently used are forgotten): bounded memory whatever the addresses. */
const KEYS_MAX = 20_000;

interface Window {
  n: number;
  /** Epoch ms at which the count starts over. */
  resetAt: number;
}

interface AccountWindow extends Window {
  /** Epoch ms before which no stranger's attempt on the account is let through. */
  nextAt: number;
}

/** One login attempt counted by `reserve`, to be handed back to `succeeded` when its password was right. */
export interface ReservedAttempt {
  readonly email: string;
  readonly source: string;
  /** The nonce of the device cookie the attempt came with, valid for the account; '' for a stranger. */
  readonly device: string;
  /** The windows the attempt was counted in (the source's, the account's; or the device's): a refund never reaches into a later one. */
  readonly resetAt: readonly [number, number];
}

/**
 * Failed password sign-ins, counted so that nobody but the guesser pays for the guesses (docs/authentication.md,
 * "Login answers"): no count that a third party can fill refuses the right password from everyone.
 *
 * - A browser with a valid device cookie for the account is judged by its own failures only (its cookie's nonce):
 *   at the per-account limit the cookie is refused until the window ends.
 * - A stranger (no such cookie) is counted per source (IPv4 address, IPv6 /64: clientSource) over all accounts, per
 *   account and source, and per account. The first two refuse that source until the window ends. The account's count
 *   refuses nobody for the window: past the per-account limit it slows strangers down, one attempt on the account per
 *   delay, the delay doubling with each further failure (1 s, 2 s, 4 s, …) up to LOGIN_SLOWDOWN_MAX_S.
 *
 * A refusal covers the right password too (answering only wrong guesses with 429 would tell a guesser which guess was
 * right). Every attempt is counted before its password is checked, and given back when it was right; the counting is
 * synchronous, so attempts sent at once cannot all slip under a limit. Kept in memory, in tables of at most KEYS_MAX
 * keys each: sign-ins are answered by the authentication service, which runs on the main thread only.
 */
export class LoginFailures {
  readonly #sources: LRUCache<string, Window> = growingLru(KEYS_MAX);
  /** `email \n source` -> its window. */
  readonly #pairs: LRUCache<string, Window> = growingLru(KEYS_MAX);
  readonly #accounts: LRUCache<string, AccountWindow> = growingLru(KEYS_MAX);
  /** A device cookie's nonce -> its window. */
  readonly #devices: LRUCache<string, Window> = growingLru(KEYS_MAX);

  constructor(
    private readonly limits: LoginFailureLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts the attempt as a failure, or throws 429 with Retry-After (counting nothing) while its device cookie, its
   * source or its (account, source) pair is at its limit, or while the account is slowed down for strangers.
   * `device` is the nonce of a device cookie valid for the account, '' for none.
   */
  reserve(email: string, address: string, device: string): ReservedAttempt {
    const now = this.now();
    const source = clientSource(address);
    const { perSource, perAccount } = this.limits;
    if (device !== '') {
      const d = live(this.#devices.get(device), now);
      if (d && d.n >= perAccount) throw throttled(untilReset(d, now), 'too many failed sign-ins from this browser');
      return { email, source, device, resetAt: [this.#count(this.#devices, device, d, now).resetAt, 0] };
    }
    const pairKey = `${email}\n${source}`;
    const s = live(this.#sources.get(source), now);
    if (s && s.n >= perSource) throw throttled(untilReset(s, now), 'too many failed sign-ins from this address');
    const p = live(this.#pairs.get(pairKey), now);
    if (p && p.n >= perAccount) throw throttled(untilReset(p, now), 'too many failed sign-ins to this account from this address');
    const a = live(this.#accounts.get(email), now);
    if (a && a.n >= perAccount && now < a.nextAt) throw throttled(Math.ceil((a.nextAt - now) / 1000), 'sign-ins to this account are slowed down after failed attempts');
    const sourceWindow = this.#count(this.#sources, source, s, now);
    this.#count(this.#pairs, pairKey, p, now);
    const account = a ?? { n: 0, resetAt: now + this.limits.windowMs, nextAt: 0 };
    account.n++;
    if (account.n >= perAccount) account.nextAt = now + Math.min(1000 * 2 ** (account.n - perAccount), this.limits.slowdownMaxMs);
    this.#accounts.set(email, account);
    return { email, source, device, resetAt: [sourceWindow.resetAt, account.resetAt] };
  }

  /**
   * The attempt's password was right. A device cookie's count is cleared. For a stranger only this attempt is given
   * back to its source and to the account (the failures before it stay counted), and its (account, source) count is
   * cleared: whoever knows the password needs no guesses.
   */
  succeeded(r: ReservedAttempt): void {
    if (r.device !== '') {
      this.#devices.delete(r.device);
      return;
    }
    giveBack(this.#sources, r.source, r.resetAt[0]);
    giveBack(this.#accounts, r.email, r.resetAt[1]);
    this.#pairs.delete(`${r.email}\n${r.source}`);
  }

  /** Failures counted on `email` from `address`'s source in the current window. */
  failuresOf(email: string, address: string): number {
    return live(this.#pairs.get(`${email}\n${clientSource(address)}`), this.now())?.n ?? 0;
  }

  #count(table: LRUCache<string, Window>, key: string, w: Window | undefined, now: number): Window {
    const next = w ?? { n: 0, resetAt: now + this.limits.windowMs };
    next.n++;
    table.set(key, next);
    return next;
  }
}

/** The window while it lasts. */
function live<W extends Window>(w: W | undefined, now: number): W | undefined {
  return w && w.resetAt > now ? w : undefined;
}

function untilReset(w: Window, now: number): number {
  return Math.ceil((w.resetAt - now) / 1000);
}

function giveBack<W extends Window>(table: LRUCache<string, W>, key: string, resetAt: number): void {
  const w = table.peek(key);
  if (!w || w.resetAt !== resetAt) return;
  if (w.n <= 1) table.delete(key);
  else w.n--;
}

function throttled(retryS: number, why: string): GatewayError {
  const s = Math.max(1, retryS);
  return new GatewayError('login_throttled', `${why}; retry in ${s} s`, '', { 'retry-after': String(s) });
}
