import type pg from 'pg';
import { hashToken, isWellFormedToken } from '@aduana/shared';
import { mintSession, type SessionRecord } from '../../identity/sessions/session-store.js';
import type { SessionRepository } from '../../storage/repositories.js';
import type { TableSpec } from './mirrored-table.js';
import type { TableMirror } from './table-mirror.js';

export const SESSIONS: TableSpec<SessionRecord> = {
  table: 'sessions',
  selectAll: 'SELECT hash AS key, record AS rec FROM sessions',
  selectOne: 'SELECT hash AS key, record AS rec FROM sessions WHERE hash = $1',
};

/** Login sessions on PostgreSQL, keyed by the session token's SHA-256. */
export class PgSessionRepository implements SessionRepository {
  constructor(
    private readonly pool: pg.Pool,
    private readonly mirror: TableMirror,
    private readonly ttlMs: number,
  ) {}

  async open(tenantId: string, userId: string, method: SessionRecord['method']): Promise<{ token: string; record: SessionRecord }> {
    const { token, record } = mintSession(tenantId, userId, method, this.ttlMs);
    const hash = hashToken(token);
    await this.pool.query('INSERT INTO sessions (hash, id, tenant_id, record) VALUES ($1, $2, $3, $4)', [hash, record.id, record.tenant_id, record]);
    await this.mirror.apply('sessions', hash, record);
    return { token, record };
  }

  find(token: string): SessionRecord | undefined {
    if (!isWellFormedToken(token, 'ses')) return undefined;
    return this.mirror.table<SessionRecord>('sessions').get(hashToken(token));
  }

  async revoke(token: string): Promise<boolean> {
    const hash = hashToken(token);
    const { rows } = await this.pool.query<{ record: SessionRecord }>(
      `UPDATE sessions SET record = CASE WHEN record->>'revoked_at' IS NULL THEN jsonb_set(record, '{revoked_at}', to_jsonb($2::text)) ELSE record END
       WHERE hash = $1 RETURNING record`,
      [hash, new Date().toISOString()],
    );
    const rec = rows[0]?.record;
    if (!rec) return false;
    await this.mirror.apply('sessions', hash, rec);
    return true;
  }

  async pruneExpired(before: Date, limit: number): Promise<number> {
    // expires_at is always an ISO-8601 UTC string of one width, so text order is time order.
    const { rows } = await this.pool.query<{ hash: string }>(
      `DELETE FROM sessions WHERE hash IN (SELECT hash FROM sessions WHERE record->>'expires_at' < $1 LIMIT $2) RETURNING hash`,
      [before.toISOString(), limit],
    );
    for (const { hash } of rows) await this.mirror.apply('sessions', hash, undefined);
    return rows.length;
  }
}
