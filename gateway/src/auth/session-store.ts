import { generateToken, hashToken, newId } from '@aduana/shared';
import type { GatewayStore } from '../storage/gateway-store.js';
import type { Role } from './principal.js';

export interface SessionRecord {
  id: string;
  tenant_id: string;
  user_id: string;
  email: string;
  role: Role;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

/** Login sessions (`adu_ses_…`), stored by hash like PATs. */
export class SessionStore {
  constructor(private readonly store: GatewayStore) {}

  async create(user: { id: string; tenant_id: string; email: string; role: Role }, ttlHours: number): Promise<{ token: string; record: SessionRecord }> {
    const token = generateToken('ses');
    const now = Date.now();
    const record: SessionRecord = {
      id: newId('ses'),
      tenant_id: user.tenant_id,
      user_id: user.id,
      email: user.email,
      role: user.role,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + ttlHours * 3_600_000).toISOString(),
      revoked_at: null,
    };
    await this.store.sessions.put(hashToken(token), record);
    return { token, record };
  }

  async revoke(token: string): Promise<boolean> {
    const key = hashToken(token);
    const rec = this.store.sessions.get(key) as SessionRecord | undefined;
    if (!rec) return false;
    if (!rec.revoked_at) await this.store.sessions.put(key, { ...rec, revoked_at: new Date().toISOString() });
    return true;
  }
}
