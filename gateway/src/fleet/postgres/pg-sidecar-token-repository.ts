import type pg from 'pg';
import type { SidecarTokenRecord, SidecarTokenRepository, SidecarTokenRotation } from '../../storage/repositories.js';
import { byCreation, mintSidecarToken, mintSuccessor } from '../sidecar-token-store.js';
import { withTransaction } from './database.js';
import type { TableSpec } from './mirrored-table.js';
import type { TableMirror } from './table-mirror.js';

export const SIDECAR_TOKENS: TableSpec<SidecarTokenRecord> = {
  table: 'sidecar_tokens',
  selectAll: 'SELECT hash AS key, record AS rec FROM sidecar_tokens',
  selectOne: 'SELECT hash AS key, record AS rec FROM sidecar_tokens WHERE hash = $1',
  unique: { id: (r) => r.id },
};

const INSERT = 'INSERT INTO sidecar_tokens (hash, id, created_at, record) VALUES ($1, $2, $3, $4)';

/** Sidecar tokens on PostgreSQL, keyed by the token's SHA-256. */
export class PgSidecarTokenRepository implements SidecarTokenRepository {
  constructor(
    private readonly pool: pg.Pool,
    private readonly mirror: TableMirror,
  ) {}

  async create(name: string, tenants: string[] | null): Promise<{ token: string; record: SidecarTokenRecord }> {
    const { token, hash, record } = mintSidecarToken(name, tenants);
    await this.pool.query(INSERT, [hash, record.id, record.created_at, record]);
    await this.mirror.apply('sidecar_tokens', hash, record);
    return { token, record };
  }

  findByHash(hash: string): SidecarTokenRecord | undefined {
    return this.mirror.table<SidecarTokenRecord>('sidecar_tokens').get(hash);
  }

  list(): SidecarTokenRecord[] {
    return this.mirror.table<SidecarTokenRecord>('sidecar_tokens').all().sort(byCreation);
  }

  async rotate(id: string): Promise<SidecarTokenRotation> {
    const out = await withTransaction(this.pool, async (c): Promise<{ outcome: SidecarTokenRotation; writes: [string, SidecarTokenRecord][] }> => {
      const { rows } = await c.query<{ hash: string; record: SidecarTokenRecord }>('SELECT hash, record FROM sidecar_tokens WHERE id = $1 FOR UPDATE', [id]);
      const row = rows[0];
      if (!row) return { outcome: { kind: 'not_found' }, writes: [] };
      if (row.record.rotated_to) return { outcome: { kind: 'already_rotated' }, writes: [] };
      const next = mintSuccessor(row.record);
      const old: SidecarTokenRecord = { ...row.record, revoked_at: row.record.revoked_at ?? next.record.created_at, rotated_to: next.record.id };
      await c.query(INSERT, [next.hash, next.record.id, next.record.created_at, next.record]);
      await c.query('UPDATE sidecar_tokens SET record = $2 WHERE hash = $1', [row.hash, old]);
      return {
        outcome: { kind: 'rotated', token: next.token, record: next.record },
        writes: [
          [next.hash, next.record],
          [row.hash, old],
        ],
      };
    });
    for (const [hash, rec] of out.writes) await this.mirror.apply('sidecar_tokens', hash, rec);
    return out.outcome;
  }

  async revoke(id: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ hash: string; record: SidecarTokenRecord }>(
      `UPDATE sidecar_tokens SET record = CASE WHEN record->>'revoked_at' IS NULL THEN jsonb_set(record, '{revoked_at}', to_jsonb($2::text)) ELSE record END
       WHERE id = $1 RETURNING hash, record`,
      [id, new Date().toISOString()],
    );
    const row = rows[0];
    if (!row) return false;
    await this.mirror.apply('sidecar_tokens', row.hash, row.record);
    return true;
  }
}
