import { GatewayError } from '../../errors.js';

/** Who a password check is for: a stranger, keyed by its source; or a device-cookie holder, keyed by its account. */
export interface SlotHolder {
  readonly key: string;
  readonly trusted: boolean;
}

/**
 * Password checks under way, bounded overall, per holder, and for strangers (docs/authentication.md, "Login answers").
 * Each check is one scrypt (tens of MiB, tens of ms) on libuv's small thread pool: unbounded, a flood of logins from
 * one address queues its hashes ahead of everyone else's and holds their memory. Past a bound a login is refused at
 * once with 429 rather than queued. A stranger's share is its source's (IPv4 address, IPv6 /64), and strangers
 * together may hold all but `reserved` slots, so a flood from any number of addresses cannot refuse the sign-in of a
 * browser with a device cookie; a device-cookie holder's share is its account's.
 */
export class LoginHashSlots {
  #total = 0;
  #strangers = 0;
  /** Holder key -> its checks under way; a key is removed when it has none, so this holds at most `max` keys. */
  readonly #byHolder = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly perHolder: number,
    private readonly reserved: number,
  ) {}

  /** Takes a slot for `holder`, or throws 429 with Retry-After; every slot taken is given back with `release`. */
  acquire(holder: SlotHolder): void {
    const mine = this.#byHolder.get(holder.key) ?? 0;
    if (mine >= this.perHolder) throw busy(holder.trusted ? 'too many sign-ins to this account in progress; retry shortly' : 'too many sign-ins in progress from this address; retry shortly');
    if (this.#total >= this.max || (!holder.trusted && this.#strangers >= this.max - this.reserved)) throw busy('too many sign-ins in progress; retry shortly');
    this.#byHolder.set(holder.key, mine + 1);
    this.#total++;
    if (!holder.trusted) this.#strangers++;
  }

  release(holder: SlotHolder): void {
    const mine = this.#byHolder.get(holder.key) ?? 0;
    if (mine <= 1) this.#byHolder.delete(holder.key);
    else this.#byHolder.set(holder.key, mine - 1);
    this.#total--;
    if (!holder.trusted) this.#strangers--;
  }
}

function busy(message: string): GatewayError {
  return new GatewayError('login_busy', message, '', { 'retry-after': '1' });
}
