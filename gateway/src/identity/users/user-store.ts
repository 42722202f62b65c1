import { newId } from '@aduana/shared';
import type { GatewayStore } from '../../storage/gateway-store.js';
import type { Role } from '../auth/principal.js';
import type { PasswordHash } from './password-hash.js';
import type { Provider, UserRecord } from './user-record.js';
import type { UserRepository } from '../../storage/repositories.js';

export interface NewUser {
  tenantId: string;
  email: string;
  name: string;
  role: Role;
  provider: Provider;
  password: PasswordHash | null;
  oidc?: { iss: string; sub: string } | null;
  avatarUrl?: string | null;
}

/** The record of a new user (both backends make them here). */
export function newUserRecord(u: NewUser): UserRecord {
  return {
    id: newId('usr'),
    tenant_id: u.tenantId,
    email: u.email,
    name: u.name,
    role: u.role,
    provider: u.provider,
    avatar_url: u.avatarUrl ?? null,
    password: u.password,
    oidc: u.oidc ?? null,
    created_at: new Date().toISOString(),
    disabled_at: null,
  };
}

/**
 * Users in LMDB: ['id', id] -> record, ['email', e-mail] -> id, ['oidc', issuer, sub] -> id. Creation checks and writes
 * the unique keys in one transaction, so two concurrent creations of one address cannot both win.
 */
export class UserStore implements UserRepository {
  constructor(private readonly store: GatewayStore) {}

  get(id: string): UserRecord | undefined {
    return this.store.users.get(['id', id]) as UserRecord | undefined;
  }

  byEmail(email: string): UserRecord | undefined {
    const id = this.store.users.get(['email', email]) as string | undefined;
    return id ? this.get(id) : undefined;
  }

  bySubject(iss: string, sub: string): UserRecord | undefined {
    const id = this.store.users.get(['oidc', iss, sub]) as string | undefined;
    return id ? this.get(id) : undefined;
  }

  list(tenantId: string): UserRecord[] {
    const out: UserRecord[] = [];
    for (const { value } of this.store.users.getRange({ start: ['id'], end: ['id', '\uffff'] })) {
      const u = value as UserRecord;
      if (u.tenant_id === tenantId) out.push(u);
    }
    return out.sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  /** Undefined when the e-mail (or the provider subject) is already taken. */
  async create(u: NewUser): Promise<UserRecord | undefined> {
    const rec = newUserRecord(u);
    let created = false;
    await this.store.root.transaction(() => {
      if (this.store.users.get(['email', rec.email]) !== undefined) return;
      if (rec.oidc && this.store.users.get(['oidc', rec.oidc.iss, rec.oidc.sub]) !== undefined) return;
      this.store.users.put(['id', rec.id], rec);
      this.store.users.put(['email', rec.email], rec.id);
      if (rec.oidc) this.store.users.put(['oidc', rec.oidc.iss, rec.oidc.sub], rec.id);
      created = true;
    });
    return created ? rec : undefined;
  }

  /** Disables a user of the tenant (its sessions and tokens stop working at once); undefined when there is none. */
  async disable(tenantId: string, id: string): Promise<UserRecord | undefined> {
    let out: UserRecord | undefined;
    await this.store.credentials.change(this.store.root, () => {
      const cur = this.get(id);
      if (!cur || cur.tenant_id !== tenantId) return false;
      if (cur.disabled_at) {
        out = cur;
        return false;
      }
      out = { ...cur, disabled_at: new Date().toISOString() };
      this.store.users.put(['id', id], out);
      return true;
    });
    return out;
  }
}
