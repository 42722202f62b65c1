import { generateToken, hashToken, newId } from '@aduana/shared';
import type { GatewayStore } from '../../storage/gateway-store.js';
import type { Role } from './principal.js';
import type { TokenRepository } from '../../storage/repositories.js';

/** A stored PAT: the secret itself is never stored, only its SHA-256 (the key). */
export interface TokenRecord {
  id: string;
  tenant_id: string;
  name: string;
  role: Role;
  user_id: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last4: string;
  /** The agent the token is bound to (null or absent: unbound, its holder names any agent). */
  agent_id?: string | null;
  /** Set by `aduana token rotate`: the successor's id. */
  rotated_to?: string;
}

export interface NewToken {
  tenantId: string;
  role: Role;
  name: string;
  expiresInDays: number;
  userId?: string;
  /** Epoch ms: caps the expiry, so a token minted by another never outlives it. */
  notAfter?: number;
  agentId?: string | null;
  /** The token itself, when the operator generated it (BOOTSTRAP_TOKEN, checked well-formed); minted here otherwise. */
  token?: string;
}

export type RotateOutcome = { kind: 'rotated'; token: string; record: TokenRecord; oldExpiresAt: string } | { kind: 'not_found' | 'not_active' };

export interface CreatedToken {
  token: string;
  record: TokenRecord;
}

/** A new PAT and its record (both backends mint them here): the secret, its SHA-256 and what is stored under it. */
export function mintToken(opts: NewToken): { token: string; hash: string; record: TokenRecord } {
  const token = opts.token ?? generateToken('pat');
  const now = Date.now();
  const expires = Math.min(now + opts.expiresInDays * 86_400_000, opts.notAfter ?? Infinity);
  const record: TokenRecord = {
    id: newId('tok'),
    tenant_id: opts.tenantId,
    name: opts.name,
    role: opts.role,
    user_id: opts.userId ?? '',
    created_at: new Date(now).toISOString(),
    expires_at: new Date(expires).toISOString(),
    revoked_at: null,
    last4: token.slice(-4),
    agent_id: opts.agentId ?? null,
  };
  return { token, hash: hashToken(token), record };
}

/** Tokens in LMDB: sha256(token) -> TokenRecord, token id -> sha256(token). */
export class TokenStore implements TokenRepository {
  constructor(private readonly store: GatewayStore) {}

  async create(opts: NewToken): Promise<CreatedToken> {
    const { token, hash, record } = mintToken(opts);
    await this.store.root.transaction(() => {
      this.store.tokens.put(hash, record);
      this.store.tokenIds.put(record.id, hash);
    });
    return { token, record };
  }

  /** The record of a presented token (by hash); undefined when unknown. */
  findByToken(token: string): TokenRecord | undefined {
    return this.findByHash(hashToken(token));
  }

  findByHash(hash: string): TokenRecord | undefined {
    return this.store.tokens.get(hash) as TokenRecord | undefined;
  }

  get(id: string): TokenRecord | undefined {
    const hash = this.store.tokenIds.get(id) as string | undefined;
    return hash ? (this.store.tokens.get(hash) as TokenRecord | undefined) : undefined;
  }

  hashOf(id: string): string | undefined {
    return this.store.tokenIds.get(id) as string | undefined;
  }

  list(tenantId?: string): TokenRecord[] {
    const out: TokenRecord[] = [];
    for (const { value } of this.store.tokens.getRange()) {
      const r = value as TokenRecord;
      if (!tenantId || r.tenant_id === tenantId) out.push(r);
    }
    return out.sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  /**
   * A successor with the same tenant, role, name, user and agent binding; the old token's expiry is brought forward
   * to now + `graceMs` (never pushed back), so clients can switch over meanwhile.
   */
  async rotate(id: string, expiresInDays: number, graceMs: number): Promise<RotateOutcome> {
    const hash = this.store.tokenIds.get(id) as string | undefined;
    const old = hash ? (this.store.tokens.get(hash) as TokenRecord | undefined) : undefined;
    if (!hash || !old) return { kind: 'not_found' };
    const now = Date.now();
    if (old.revoked_at || Date.parse(old.expires_at) <= now) return { kind: 'not_active' };
    const { token, record } = await this.create({ tenantId: old.tenant_id, role: old.role, name: old.name, expiresInDays, userId: old.user_id, agentId: old.agent_id ?? null });
    const oldExpiresAt = new Date(Math.min(Date.parse(old.expires_at), now + graceMs)).toISOString();
    await this.store.credentials.change(this.store.root, () => this.store.tokens.put(hash, { ...old, expires_at: oldExpiresAt, rotated_to: record.id }));
    return { kind: 'rotated', token, record, oldExpiresAt };
  }

  /** Revokes a token; false when there is none with that id (in that tenant, when given). */
  async revoke(id: string, tenantId?: string): Promise<boolean> {
    const hash = this.store.tokenIds.get(id) as string | undefined;
    if (!hash) return false;
    const rec = this.store.tokens.get(hash) as TokenRecord | undefined;
    if (!rec || (tenantId && rec.tenant_id !== tenantId)) return false;
    if (!rec.revoked_at) await this.store.credentials.change(this.store.root, () => this.store.tokens.put(hash, { ...rec, revoked_at: new Date().toISOString() }));
    return true;
  }
}
