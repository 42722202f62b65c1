import type pg from 'pg';
import { hashToken } from '@aduana/shared';
import { mintToken, type CreatedToken, type NewToken, type RotateOutcome, type TokenRecord } from '../../identity/auth/token-store.js';
import type { TokenRepository } from '../../storage/repositories.js';
import { withTransaction } from './database.js';
import type { TableSpec } from './mirrored-table.js';
import type { TableMirror } from './table-mirror.js';

export const TOKENS: TableSpec<TokenRecord> = {
  table: 'tokens',
  selectAll: 'SELECT hash AS key, record AS rec FROM tokens',
  selectOne: 'SELECT hash AS key, record AS rec FROM tokens WHERE hash = $1',
  unique: { id: (r) => r.id },
  groupOf: (r) => r.tenant_id,
};

const INSERT = 'INSERT INTO tokens (hash, id, tenant_id, created_at, record) VALUES ($1, $2, $3, $4, $5)';

/** PATs on PostgreSQL: the same records as the LMDB TokenStore, keyed by the token's SHA-256. */
export class PgTokenRepository implements TokenRepository {
  constructor(
    private readonly pool: pg.Pool,
    private readonly mirror: TableMirror,
  ) {}

  async create(opts: NewToken): Promise<CreatedToken> {
    const { token, record, hash } = mintToken(opts);
    await this.pool.query(INSERT, [hash, record.id, record.tenant_id, record.created_at, record]);
    await this.mirror.apply('tokens', hash, record);
    return { token, record };
  }

  findByToken(token: string): TokenRecord | undefined {
    return this.findByHash(hashToken(token));
  }

  findByHash(hash: string): TokenRecord | undefined {
    return this.#table().get(hash);
  }

  get(id: string): TokenRecord | undefined {
    return this.#table().byUnique('id', id);
  }

  hashOf(id: string): string | undefined {
    return this.#table().keyByUnique('id', id);
  }

  list(tenantId?: string): TokenRecord[] {
    const t = this.#table();
    return (tenantId ? t.group(tenantId) : t.all()).sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  async rotate(id: string, expiresInDays: number, graceMs: number): Promise<RotateOutcome> {
    const out = await withTransaction(this.pool, async (c): Promise<{ outcome: RotateOutcome; writes: [string, TokenRecord][] }> => {
      const { rows } = await c.query<{ hash: string; record: TokenRecord }>('SELECT hash, record FROM tokens WHERE id = $1 FOR UPDATE', [id]);
      const row = rows[0];
      if (!row) return { outcome: { kind: 'not_found' }, writes: [] };
      const old = row.record;
      const now = Date.now();
      if (old.revoked_at || Date.parse(old.expires_at) <= now) return { outcome: { kind: 'not_active' }, writes: [] };
      const next = mintToken({ tenantId: old.tenant_id, role: old.role, name: old.name, expiresInDays, userId: old.user_id, agentId: old.agent_id ?? null });
      const oldExpiresAt = new Date(Math.min(Date.parse(old.expires_at), now + graceMs)).toISOString();
      const updated: TokenRecord = { ...old, expires_at: oldExpiresAt, rotated_to: next.record.id };
      await c.query(INSERT, [next.hash, next.record.id, next.record.tenant_id, next.record.created_at, next.record]);
      await c.query('UPDATE tokens SET record = $2 WHERE hash = $1', [row.hash, updated]);
      return {
        outcome: { kind: 'rotated', token: next.token, record: next.record, oldExpiresAt },
        writes: [
          [next.hash, next.record],
          [row.hash, updated],
        ],
      };
    });
    for (const [hash, rec] of out.writes) await this.mirror.apply('tokens', hash, rec);
    return out.outcome;
  }

  async revoke(id: string, tenantId?: string): Promise<boolean> {
    const out = await withTransaction(this.pool, async (c) => {
      const { rows } = await c.query<{ hash: string; record: TokenRecord }>('SELECT hash, record FROM tokens WHERE id = $1 FOR UPDATE', [id]);
      const row = rows[0];
      if (!row || (tenantId && row.record.tenant_id !== tenantId)) return null;
      if (row.record.revoked_at) return { hash: row.hash, rec: row.record };
      const rec: TokenRecord = { ...row.record, revoked_at: new Date().toISOString() };
      await c.query('UPDATE tokens SET record = $2 WHERE hash = $1', [row.hash, rec]);
      return { hash: row.hash, rec };
    });
    if (!out) return false;
    await this.mirror.apply('tokens', out.hash, out.rec);
    return true;
  }

  #table() {
    return this.mirror.table<TokenRecord>('tokens');
  }
}
