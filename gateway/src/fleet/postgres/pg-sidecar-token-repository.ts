import type pg from 'pg';
import type { SidecarTokenRecord, SidecarTokenRepository } from '../../storage/repositories.js';
import { byCreation, mintSidecarToken } from '../sidecar-token-store.js';
import type { TableSpec } from './mirrored-table.js';
import type { TableMirror } from './table-mirror.js';

export const SIDECAR_TOKENS: TableSpec<SidecarTokenRecord> = {
  table: 'sidecar_tokens',
  selectAll: 'SELECT hash AS key, record AS rec FROM sidecar_tokens',
  selectOne: 'SELECT hash AS key, record AS rec FROM sidecar_tokens WHERE hash = $1',
  unique: { id: (r) => r.id },
};

/** Sidecar tokens on PostgreSQL, keyed by the token's SHA-256. */
export class PgSidecarTokenRepository implements SidecarTokenRepository {
  constructor(
    private readonly pool: pg.Pool,
    private readonly mirror: TableMirror,
  ) {}

  async create(name: string, tenants: string[] | null): Promise<{ token: string; record: SidecarTokenRecord }> {
    const { token, hash, record } = mintSidecarToken(name, tenants);
    await this.pool.query('INSERT INTO sidecar_tokens (hash, id, created_at, record) VALUES ($1, $2, $3, $4)', [hash, record.id, record.created_at, record]);
    await this.mirror.apply('sidecar_tokens', hash, record);
    return { token, record };
  }

  findByHash(hash: string): SidecarTokenRecord | undefined {
    return this.mirror.table<SidecarTokenRecord>('sidecar_tokens').get(hash);
  }

  list(): SidecarTokenRecord[] {
    return this.mirror.table<SidecarTokenRecord>('sidecar_tokens').all().sort(byCreation);
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
