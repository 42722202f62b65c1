import { GatewayError } from '../../errors.js';
import type { GatewayConfig } from '../../config.js';
import { normalizeEmail, type UserRecord } from '../users/user-record.js';
import { dummyHash, verifyPassword, type PasswordHash } from '../users/password-hash.js';
import type { LoginFailures, ReservedAttempt } from './login-failures.js';
import { LoginHashSlots, type SlotHolder } from './login-hash-slots.js';
import { clientSource } from '../../platform/client-source.js';
import { DeviceCookies, deviceCookieKey } from './device-cookies.js';
import type { SessionRecord } from './session-store.js';
import type { SessionRepository, UserRepository } from '../../storage/repositories.js';

export interface PasswordLoginOptions {
  passwordMaxBytes: number;
  scryptLogN: number;
  /**
   * Password checks under way at once: in all (LOGIN_HASHES_IN_FLIGHT_MAX), for one source or device-cookie account
   * (…_PER_ADDRESS), and the slots strangers may not take (LOGIN_HASHES_RESERVED_FOR_DEVICES).
   */
  hashesInFlightMax: number;
  hashesInFlightPerAddress: number;
  hashesReservedForDevices: number;
  deviceCookieKey: Buffer;
  deviceCookieTtlMs: number;
  cookieSecure: boolean;
}

/** The password-login settings (the device-cookie key read or made in DATA_DIR when no setting gives it). */
export function passwordLoginOptions(config: GatewayConfig): PasswordLoginOptions {
  return {
    passwordMaxBytes: config.passwordMaxBytes,
    scryptLogN: config.passwordScryptLogN,
    hashesInFlightMax: config.loginHashesInFlightMax,
    hashesInFlightPerAddress: config.loginHashesInFlightPerAddress,
    hashesReservedForDevices: config.loginHashesReservedForDevices,
    deviceCookieKey: deviceCookieKey(config.loginDeviceCookieKey, config.dataDir),
    deviceCookieTtlMs: config.loginDeviceCookieDays * 86_400_000,
    cookieSecure: config.cookieSecure,
  };
}

/** A successful sign-in: the session, and the Set-Cookie of the browser's renewed device cookie. */
export interface PasswordLoginResult {
  token: string;
  record: SessionRecord;
  user: UserRecord;
  deviceCookie: string;
}

/**
 * E-mail and password to a session, shared by POST /login and the console's sign-in form. An unknown e-mail, a
 * disabled account, an identity-provider account and a wrong password all cost one scrypt and get the same 401.
 * Before the hash: a slot among the checks under way (LoginHashSlots), then the attempt counted against the
 * failed-login limits (LoginFailures.reserve), so neither limit can be outrun by sending attempts at once. A browser
 * whose device cookie is valid for the account is counted on its own (DeviceCookies, LoginFailures).
 */
export class PasswordLogin {
  readonly #dummy: PasswordHash;
  readonly #slots: LoginHashSlots;
  readonly #devices: DeviceCookies;

  constructor(
    private readonly users: UserRepository,
    private readonly sessions: SessionRepository,
    readonly failures: LoginFailures,
    private readonly opts: PasswordLoginOptions,
  ) {
    this.#dummy = dummyHash(opts.scryptLogN);
    this.#slots = new LoginHashSlots(opts.hashesInFlightMax, opts.hashesInFlightPerAddress, opts.hashesReservedForDevices);
    this.#devices = new DeviceCookies({ key: opts.deviceCookieKey, ttlMs: opts.deviceCookieTtlMs, secure: opts.cookieSecure });
  }

  /** `cookieHeader`: the request's Cookie header ('' for none), where a device cookie may be. */
  async login(rawEmail: string, password: string, address: string, cookieHeader: string): Promise<PasswordLoginResult> {
    if (Buffer.byteLength(password, 'utf8') > this.opts.passwordMaxBytes) throw new GatewayError('invalid_request', `password: at most ${this.opts.passwordMaxBytes} bytes`);
    const email = normalizeEmail(rawEmail);
    if (!email) throw new GatewayError('invalid_request', 'email: not an e-mail address');
    const user = this.users.byEmail(email);
    const device = this.#devices.trusted(cookieHeader, user);
    const holder: SlotHolder = device !== '' ? { key: `account ${(user as UserRecord).id}`, trusted: true } : { key: `source ${clientSource(address)}`, trusted: false };
    this.#slots.acquire(holder);
    let attempt: ReservedAttempt;
    let usable: UserRecord | undefined;
    let ok: boolean;
    try {
      attempt = this.failures.reserve(email, address, device);
      usable = user && !user.disabled_at && user.password ? user : undefined;
      ok = await verifyPassword(password, usable?.password ?? this.#dummy);
    } finally {
      this.#slots.release(holder);
    }
    if (!ok || !usable) throw new GatewayError('invalid_credentials');
    this.failures.succeeded(attempt);
    const { token, record } = await this.sessions.open(usable.tenant_id, usable.id, 'password');
    return { token, record, user: usable, deviceCookie: this.#devices.issue(cookieHeader, usable) };
  }
}
