import { generateToken, hashToken, newId } from '@aduana/shared';
import type { GatewayStore } from '../storage/gateway-store.js';
import type { SidecarTokenRecord, SidecarTokenRepository } from '../storage/repositories.js';

/** A new sidecar token and its record (both backends mint them here): only the SHA-256 is ever stored. */
export function mintSidecarToken(name: string, tenants: string[] | null): { token: string; hash: string; record: SidecarTokenRecord } {
  const token = generateToken('sct');
  const record: SidecarTokenRecord = {
    id: newId('sct'),
    name,
    tenants: tenants === null ? null : [...new Set(tenants)],
    created_at: new Date().toISOString(),
    revoked_at: null,
    last4: token.slice(-4),
  };
  return { token, hash: hashToken(token), record };
}

export function byCreation(a: SidecarTokenRecord, b: SidecarTokenRecord): number {
  return a.created_at.localeCompare(b.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Sidecar tokens in LMDB: ['hash', sha256] -> record, ['id', id] -> sha256. */
export class SidecarTokenStore implements SidecarTokenRepository {
  constructor(private readonly store: GatewayStore) {}

  async create(name: string, tenants: string[] | null): Promise<{ token: string; record: SidecarTokenRecord }> {
    const { token, hash, record } = mintSidecarToken(name, tenants);
    await this.store.root.transaction(() => {
      this.store.sidecarTokens.put(['hash', hash], record);
      this.store.sidecarTokens.put(['id', record.id], hash);
    });
    return { token, record };
  }

  findByHash(hash: string): SidecarTokenRecord | undefined {
    return this.store.sidecarTokens.get(['hash', hash]) as SidecarTokenRecord | undefined;
  }

  list(): SidecarTokenRecord[] {
    const out: SidecarTokenRecord[] = [];
    for (const { value } of this.store.sidecarTokens.getRange({ start: ['hash'], end: ['hash', '\uffff'] })) out.push(value as SidecarTokenRecord);
    return out.sort(byCreation);
  }

  async revoke(id: string): Promise<boolean> {
    let found = false;
    await this.store.root.transaction(() => {
      const hash = this.store.sidecarTokens.get(['id', id]) as string | undefined;
      const rec = hash ? (this.store.sidecarTokens.get(['hash', hash]) as SidecarTokenRecord | undefined) : undefined;
      if (!hash || !rec) return;
      found = true;
      if (!rec.revoked_at) this.store.sidecarTokens.put(['hash', hash], { ...rec, revoked_at: new Date().toISOString() });
    });
    return found;
  }
}
