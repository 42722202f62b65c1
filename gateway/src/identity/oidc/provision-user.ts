import { GatewayError } from '../../errors.js';
import { normalizeEmail, type UserRecord } from '../users/user-record.js';
import type { VerifiedIdentity } from './relying-party.js';
import type { UserRepository } from '../../storage/repositories.js';

export interface ProvisionOptions {
  tenantId: string;
  /** Lower-case domains; empty: any verified e-mail. */
  allowedDomains: readonly string[];
}

/**
 * The account of a verified identity (docs/authentication.md): found by the issuer's `sub`, never by e-mail alone. A
 * first login provisions a viewer in the configured tenant when its e-mail is verified and (when a list is set) of an
 * allowed domain. An e-mail that already belongs to another account is refused rather than taken over.
 */
export async function provisionUser(users: UserRepository, id: VerifiedIdentity, opts: ProvisionOptions): Promise<UserRecord> {
  const existing = users.bySubject(id.iss, id.sub);
  if (existing) {
    if (existing.disabled_at) throw new GatewayError('user_not_allowed', 'this account is disabled');
    return existing;
  }
  const email = normalizeEmail(id.email);
  if (!email || !id.emailVerified) throw new GatewayError('user_not_allowed', 'the identity provider gave no verified e-mail address');
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (opts.allowedDomains.length > 0 && !opts.allowedDomains.includes(domain)) throw new GatewayError('user_not_allowed', `e-mail domain ${domain} may not sign in here`);
  if (users.byEmail(email)) throw new GatewayError('user_not_allowed', 'an account with this e-mail exists and is not linked to this identity provider');
  const rec = await users.create({
    tenantId: opts.tenantId,
    email,
    name: id.name || email,
    role: 'viewer',
    provider: 'oidc',
    password: null,
    oidc: { iss: id.iss, sub: id.sub },
    avatarUrl: id.picture && /^https:\/\//.test(id.picture) ? id.picture.slice(0, 2048) : null,
  });
  if (!rec) throw new GatewayError('conflict', 'this identity was provisioned concurrently; sign in again');
  return rec;
}
