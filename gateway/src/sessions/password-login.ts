import { GatewayError } from '../errors.js';
import { normalizeEmail, type UserRecord } from '../users/user-record.js';
import { dummyHash, verifyPassword, type PasswordHash } from '../users/password-hash.js';
import type { LoginFailures } from './login-failures.js';
import type { SessionRecord } from './session-store.js';
import type { SessionRepository, UserRepository } from '../storage/repositories.js';

export interface PasswordLoginOptions {
  passwordMaxBytes: number;
  scryptLogN: number;
}

/**
 * E-mail and password to a session, shared by POST /login and the console's sign-in form. An unknown e-mail, a
 * disabled account, an identity-provider account and a wrong password all cost one scrypt and get the same 401.
 */
export class PasswordLogin {
  readonly #dummy: PasswordHash;

  constructor(
    private readonly users: UserRepository,
    private readonly sessions: SessionRepository,
    private readonly failures: LoginFailures,
    private readonly opts: PasswordLoginOptions,
  ) {
    this.#dummy = dummyHash(opts.scryptLogN);
  }

  async login(rawEmail: string, password: string, address: string): Promise<{ token: string; record: SessionRecord; user: UserRecord }> {
    if (Buffer.byteLength(password, 'utf8') > this.opts.passwordMaxBytes) throw new GatewayError('invalid_request', `password: at most ${this.opts.passwordMaxBytes} bytes`);
    const email = normalizeEmail(rawEmail);
    if (!email) throw new GatewayError('invalid_request', 'email: not an e-mail address');
    this.failures.assertAllowed(address, email);
    const user = this.users.byEmail(email);
    const usable = user && !user.disabled_at && user.password ? user : undefined;
    const ok = await verifyPassword(password, usable?.password ?? this.#dummy);
    if (!ok || !usable) {
      await this.failures.recordFailure(address, email);
      throw new GatewayError('invalid_credentials');
    }
    await this.failures.recordSuccess(email);
    const { token, record } = await this.sessions.open(usable.tenant_id, usable.id, 'password');
    return { token, record, user: usable };
  }
}
