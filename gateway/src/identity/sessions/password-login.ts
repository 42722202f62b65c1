import { GatewayError } from '../../errors.js';
import type { GatewayConfig } from '../../config.js';
import { normalizeEmail, type UserRecord } from '../users/user-record.js';
import { dummyHash, verifyPassword, type PasswordHash } from '../users/password-hash.js';
import type { LoginFailures, ReservedAttempt } from './login-failures.js';
import { LoginHashSlots } from './login-hash-slots.js';
import type { SessionRecord } from './session-store.js';
import type { SessionRepository, UserRepository } from '../../storage/repositories.js';

export interface PasswordLoginOptions {
  passwordMaxBytes: number;
  scryptLogN: number;
  /** Password checks under way at once, in all (LOGIN_HASHES_IN_FLIGHT_MAX) and from one address (…_PER_ADDRESS). */
  hashesInFlightMax: number;
  hashesInFlightPerAddress: number;
}

/** The password-login settings. */
export function passwordLoginOptions(config: GatewayConfig): PasswordLoginOptions {
  return {
    passwordMaxBytes: config.passwordMaxBytes,
    scryptLogN: config.passwordScryptLogN,
    hashesInFlightMax: config.loginHashesInFlightMax,
    hashesInFlightPerAddress: config.loginHashesInFlightPerAddress,
  };
}

/**
 * E-mail and password to a session, shared by POST /login and the console's sign-in form. An unknown e-mail, a
 * disabled account, an identity-provider account and a wrong password all cost one scrypt and get the same 401.
 * Before the hash: a slot among the checks under way (LoginHashSlots), then the attempt counted against the
 * failed-login limits (LoginFailures.reserve), so neither limit can be outrun by sending attempts at once.
 */
export class PasswordLogin {
  readonly #dummy: PasswordHash;
  readonly #slots: LoginHashSlots;

  constructor(
    private readonly users: UserRepository,
    private readonly sessions: SessionRepository,
    private readonly failures: LoginFailures,
    private readonly opts: PasswordLoginOptions,
  ) {
    this.#dummy = dummyHash(opts.scryptLogN);
    this.#slots = new LoginHashSlots(opts.hashesInFlightMax, opts.hashesInFlightPerAddress);
  }

  async login(rawEmail: string, password: string, address: string): Promise<{ token: string; record: SessionRecord; user: UserRecord }> {
    if (Buffer.byteLength(password, 'utf8') > this.opts.passwordMaxBytes) throw new GatewayError('invalid_request', `password: at most ${this.opts.passwordMaxBytes} bytes`);
    const email = normalizeEmail(rawEmail);
    if (!email) throw new GatewayError('invalid_request', 'email: not an e-mail address');
    // A refusal that needs no write first: an address or account already at its limit costs one read.
    this.failures.assertAllowed(address, email);
    this.#slots.acquire(address);
    let attempt: ReservedAttempt;
    let usable: UserRecord | undefined;
    let ok: boolean;
    try {
      attempt = await this.failures.reserve(address, email);
      const user = this.users.byEmail(email);
      usable = user && !user.disabled_at && user.password ? user : undefined;
      ok = await verifyPassword(password, usable?.password ?? this.#dummy);
    } finally {
      this.#slots.release(address);
    }
    if (!ok || !usable) throw new GatewayError('invalid_credentials');
    await this.failures.succeeded(attempt);
    const { token, record } = await this.sessions.open(usable.tenant_id, usable.id, 'password');
    return { token, record, user: usable };
  }
}
