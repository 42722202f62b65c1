import { GatewayError } from '../../errors.js';
import type { Role } from '../auth/principal.js';
import { hashPassword } from './password-hash.js';
import { normalizeEmail, type UserRecord } from './user-record.js';
import type { TenantRepository, UserRepository } from '../../storage/repositories.js';

export interface PasswordRules {
  minLength: number;
  maxBytes: number;
  scryptLogN: number;
}

/** Checks a new password against the configured bounds; the message names the rule, never the password. */
export function checkNewPassword(password: string, rules: PasswordRules): void {
  if ([...password].length < rules.minLength) throw new GatewayError('invalid_request', `password: at least ${rules.minLength} characters`);
  if (Buffer.byteLength(password, 'utf8') > rules.maxBytes) throw new GatewayError('invalid_request', `password: at most ${rules.maxBytes} bytes`);
}

/**
 * A password user, as the admin API and `aduana user create` make one: everything is checked before the (slow) hash,
 * and nothing is written unless all of it is good. 409 when the e-mail is taken (in any tenant).
 */
export async function createPasswordUser(
  users: UserRepository,
  tenants: TenantRepository,
  rules: PasswordRules,
  input: { tenantId: string; email: string; name: string; role: Role; password: string },
): Promise<UserRecord> {
  if (!tenants.get(input.tenantId)) throw new GatewayError('not_found', `no tenant ${input.tenantId}`);
  const email = normalizeEmail(input.email);
  if (!email) throw new GatewayError('invalid_request', 'email: not an e-mail address');
  checkNewPassword(input.password, rules);
  if (users.byEmail(email)) throw new GatewayError('conflict', 'a user with this e-mail exists');
  const password = await hashPassword(input.password, rules.scryptLogN);
  const rec = await users.create({ tenantId: input.tenantId, email, name: input.name, role: input.role, provider: 'password', password });
  if (!rec) throw new GatewayError('conflict', 'a user with this e-mail exists');
  return rec;
}
