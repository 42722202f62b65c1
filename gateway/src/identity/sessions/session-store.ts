import { randomBytes } from 'node:crypto';
import { generateToken, hashToken, isWellFormedToken, newId } from '@aduana/shared';
import type { GatewayStore } from '../../storage/gateway-store.js';
import type { SessionRepository } from '../../storage/repositories.js';

/** A login session (`adu_ses_…`): like a PAT, only its SHA-256 is stored. Role and e-mail are read from the user. */
export interface SessionRecord {
  id: string;
  tenant_id: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  /** How it was opened. */
  method: 'password' | 'oidc';
  /** The console's CSRF token for this session (docs/authentication.md, "Console"). */
  csrf: string;
}

/** A new session token and its record (both backends mint them here). */
export function mintSession(tenantId: string, userId: string, method: SessionRecord['method'], ttlMs: number): { token: string; record: SessionRecord } {
  const token = generateToken('ses');
  const now = Date.now();
  const record: SessionRecord = {
    id: newId('ses'),
    tenant_id: tenantId,
    user_id: userId,
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + ttlMs).toISOString(),
    revoked_at: null,
    method,
    csrf: randomBytes(24).toString('base64url'),
  };
  return { token, record };
}

export class SessionStore implements SessionRepository {
  constructor(
    private readonly store: GatewayStore,
    private readonly ttlMs: number,
  ) {}

  async open(tenantId: string, userId: string, method: SessionRecord['method']): Promise<{ token: string; record: SessionRecord }> {
    const { token, record } = mintSession(tenantId, userId, method, this.ttlMs);
    await this.store.sessions.put(hashToken(token), record);
    return { token, record };
  }

  /** The record of a presented token; undefined when malformed or unknown (the checksum is checked before any read). */
  find(token: string): SessionRecord | undefined {
    if (!isWellFormedToken(token, 'ses')) return undefined;
    return this.store.sessions.get(hashToken(token)) as SessionRecord | undefined;
  }

  async revoke(token: string): Promise<boolean> {
    const hash = hashToken(token);
    let done = false;
    await this.store.root.transaction(() => {
      const rec = this.store.sessions.get(hash) as SessionRecord | undefined;
      if (!rec) return;
      if (!rec.revoked_at) this.store.sessions.put(hash, { ...rec, revoked_at: new Date().toISOString() });
      done = true;
    });
    return done;
  }

  async pruneExpired(before: Date, limit: number): Promise<number> {
    const cutoff = before.toISOString();
    const expired: string[] = [];
    for (const { key, value } of this.store.sessions.getRange({})) {
      if ((value as SessionRecord).expires_at < cutoff) expired.push(key as string);
      if (expired.length >= limit) break;
    }
    if (expired.length === 0) return 0;
    let pruned = 0;
    await this.store.root.transaction(() => {
      for (const hash of expired) {
        const rec = this.store.sessions.get(hash) as SessionRecord | undefined;
        if (rec && rec.expires_at < cutoff && this.store.sessions.removeSync(hash)) pruned++;
      }
    });
    return pruned;
  }
}
