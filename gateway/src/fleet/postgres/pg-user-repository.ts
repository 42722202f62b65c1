import type pg from 'pg';
import { newUserRecord, type NewUser } from '../../identity/users/user-store.js';
import type { UserRecord } from '../../identity/users/user-record.js';
import type { UserRepository } from '../../storage/repositories.js';
import { isUniqueViolation } from './database.js';
import type { TableSpec } from './mirrored-table.js';
import type { TableMirror } from './table-mirror.js';

export const USERS: TableSpec<UserRecord> = {
  table: 'users',
  selectAll: 'SELECT id AS key, record AS rec FROM users',
  selectOne: 'SELECT id AS key, record AS rec FROM users WHERE id = $1',
  unique: { email: (u) => u.email, oidc: (u) => (u.oidc ? subjectKey(u.oidc.iss, u.oidc.sub) : null) },
  groupOf: (u) => u.tenant_id,
};

function subjectKey(iss: string, sub: string): string {
  return `${iss}\n${sub}`;
}

/** Users on PostgreSQL: the database's unique constraints on e-mail and (issuer, subject) decide who wins a race. */
export class PgUserRepository implements UserRepository {
  constructor(
    private readonly pool: pg.Pool,
    private readonly mirror: TableMirror,
  ) {}

  get(id: string): UserRecord | undefined {
    return this.#table().get(id);
  }

  byEmail(email: string): UserRecord | undefined {
    return this.#table().byUnique('email', email);
  }

  bySubject(iss: string, sub: string): UserRecord | undefined {
    return this.#table().byUnique('oidc', subjectKey(iss, sub));
  }

  list(tenantId: string): UserRecord[] {
    return this.#table()
      .group(tenantId)
      .sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  async create(u: NewUser): Promise<UserRecord | undefined> {
    const rec = newUserRecord(u);
    try {
      await this.pool.query('INSERT INTO users (id, tenant_id, email, oidc_iss, oidc_sub, created_at, record) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        rec.id,
        rec.tenant_id,
        rec.email,
        rec.oidc?.iss ?? null,
        rec.oidc?.sub ?? null,
        rec.created_at,
        rec,
      ]);
    } catch (err) {
      if (isUniqueViolation(err)) return undefined;
      throw err;
    }
    await this.mirror.apply('users', rec.id, rec);
    return rec;
  }

  async disable(tenantId: string, id: string): Promise<UserRecord | undefined> {
    // Only a user not yet disabled is written: disabling twice keeps the first time.
    const { rows } = await this.pool.query<{ record: UserRecord }>(
      `UPDATE users SET record = CASE WHEN record->>'disabled_at' IS NULL THEN jsonb_set(record, '{disabled_at}', to_jsonb($3::text)) ELSE record END
       WHERE id = $1 AND tenant_id = $2 RETURNING record`,
      [id, tenantId, new Date().toISOString()],
    );
    const rec = rows[0]?.record;
    if (rec) await this.mirror.apply('users', id, rec);
    return rec;
  }

  #table() {
    return this.mirror.table<UserRecord>('users');
  }
}
