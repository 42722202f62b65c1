import { generateToken, hashToken, newId } from '@aduana/shared';
import type { GatewayStore } from '../storage/gateway-store.js';
import type { SidecarTokenRecord, SidecarTokenRepository, SidecarTokenRotation } from '../storage/repositories.js';

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

/** The successor `rotate` makes: the same name and tenants, and the line's first id, which owns its chains. */
export function mintSuccessor(old: SidecarTokenRecord): { token: string; hash: string; record: SidecarTokenRecord } {
  const next = mintSidecarToken(old.name, old.tenants);
  next.record.chain_owner = chainOwnerOf(old);
  return next;
}

/** The id a sidecar token's ledger chains are bound to: the first token of its line of rotations. */
export function chainOwnerOf(rec: SidecarTokenRecord): string {
  return rec.chain_owner ?? rec.id;
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

  async rotate(id: string): Promise<SidecarTokenRotation> {
    let out: SidecarTokenRotation = { kind: 'not_found' };
    await this.store.root.transaction(() => {
      const hash = this.store.sidecarTokens.get(['id', id]) as string | undefined;
      const old = hash ? (this.store.sidecarTokens.get(['hash', hash]) as SidecarTokenRecord | undefined) : undefined;
      if (!hash || !old) return;
      if (old.rotated_to) {
        out = { kind: 'already_rotated' };
        return;
      }
      const next = mintSuccessor(old);
      this.store.sidecarTokens.put(['hash', next.hash], next.record);
      this.store.sidecarTokens.put(['id', next.record.id], next.hash);
      this.store.sidecarTokens.put(['hash', hash], { ...old, revoked_at: old.revoked_at ?? next.record.created_at, rotated_to: next.record.id });
      out = { kind: 'rotated', token: next.token, record: next.record };
    });
    return out;
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
