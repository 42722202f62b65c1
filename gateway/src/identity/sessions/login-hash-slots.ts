import { GatewayError } from '../../errors.js';

/**
 * Password checks under way, bounded overall and per client address (docs/authentication.md, "Login answers"). Each
 * check is one scrypt (tens of MiB, tens of ms) on libuv's small thread pool: unbounded, a flood of logins from one
 * address queues its hashes ahead of everyone else's and holds their memory. Past either bound a login is refused at
 * once with 429 rather than queued, and the per-address share, smaller than the whole, leaves room for other addresses.
 */
export class LoginHashSlots {
  #total = 0;
  /** Address -> its checks under way; an address is removed when it has none, so this holds at most `max` keys. */
  readonly #byAddress = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly perAddress: number,
  ) {}

  /** Takes a slot for `address`, or throws 429 with Retry-After; every slot taken is given back with `release`. */
  acquire(address: string): void {
    const mine = this.#byAddress.get(address) ?? 0;
    if (mine >= this.perAddress) throw busy('too many sign-ins in progress from this address; retry shortly');
    if (this.#total >= this.max) throw busy('too many sign-ins in progress; retry shortly');
    this.#byAddress.set(address, mine + 1);
    this.#total++;
  }

  release(address: string): void {
    const mine = this.#byAddress.get(address) ?? 0;
    if (mine <= 1) this.#byAddress.delete(address);
    else this.#byAddress.set(address, mine - 1);
    this.#total--;
  }
}

function busy(message: string): GatewayError {
  return new GatewayError('login_busy', message, '', { 'retry-after': '1' });
}
