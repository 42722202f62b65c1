import type { Role } from '../auth/principal.js';
import type { PasswordHash } from './password-hash.js';

export type Provider = 'password' | 'oidc';

/** A person who signs in (docs/authentication.md). E-mail addresses are unique across tenants: /login names no tenant. */
export interface UserRecord {
  id: string;
  tenant_id: string;
  /** Normalised: trimmed, NFC, lower case. */
  email: string;
  name: string;
  role: Role;
  provider: Provider;
  avatar_url: string | null;
  /** null for identity-provider accounts. */
  password: PasswordHash | null;
  /** The identity provider's issuer and subject the account is linked by (never by e-mail alone). */
  oidc: { iss: string; sub: string } | null;
  created_at: string;
  disabled_at: string | null;
}

/**
 * A user as the APIs show one, never with the password hash: `GET /me` on the auth service (docs/authentication.md)
 * and the admin API's user routes.
 */
export function userView(u: UserRecord) {
  return {
    id: u.id,
    tenant_id: u.tenant_id,
    email: u.email,
    name: u.name,
    role: u.role,
    provider: u.provider,
    avatar_url: u.avatar_url,
    created_at: u.created_at,
    disabled: u.disabled_at !== null,
  };
}

const EMAIL = /^[^\s@\p{Cc}\p{Cf}]{1,64}@[^\s@\p{Cc}\p{Cf}]+\.[^\s@\p{Cc}\p{Cf}]+$/u;

/** Trimmed, NFC, lower case; '' when it is not an address (unicode addresses are accepted). */
export function normalizeEmail(raw: string): string {
  const e = raw.trim().normalize('NFC').toLowerCase();
  return e.length <= 254 && EMAIL.test(e) ? e : '';
}
