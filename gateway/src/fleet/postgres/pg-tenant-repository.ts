import type pg from 'pg';
import { isValidTenantId, type TenantRecord } from '../../identity/tenants/tenant-store.js';
import type { Plan } from '../../identity/tenants/plans.js';
import type { TenantRepository } from '../../storage/repositories.js';
import type { TableSpec } from './mirrored-table.js';
import type { TableMirror } from './table-mirror.js';

const RECORD = `jsonb_build_object('id', id, 'name', name, 'plan', plan, 'created_at', created_at, 'policy_version', policy_version)`;

export const TENANTS: TableSpec<TenantRecord> = {
  table: 'tenants',
  selectAll: `SELECT id AS key, ${RECORD} AS rec FROM tenants`,
  selectOne: `SELECT id AS key, ${RECORD} AS rec FROM tenants WHERE id = $1`,
};

export class PgTenantRepository implements TenantRepository {
  constructor(
    private readonly pool: pg.Pool,
    private readonly mirror: TableMirror,
  ) {}

  get(id: string): TenantRecord | undefined {
    return this.mirror.table<TenantRecord>('tenants').get(id);
  }

  list(): TenantRecord[] {
    return this.mirror
      .table<TenantRecord>('tenants')
      .all()
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async create(id: string, plan: Plan, name = id): Promise<TenantRecord | undefined> {
    if (!isValidTenantId(id)) throw new RangeError(`invalid tenant id "${id}": lower-case letters, digits, - and _, at most 63`);
    const { rows } = await this.pool.query<{ rec: TenantRecord }>(
      `INSERT INTO tenants (id, name, plan, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING RETURNING ${RECORD} AS rec`,
      [id, name, plan, new Date().toISOString()],
    );
    const rec = rows[0]?.rec;
    if (rec) await this.mirror.apply('tenants', id, rec);
    return rec;
  }

  async setPlan(id: string, plan: Plan): Promise<TenantRecord | undefined> {
    const { rows } = await this.pool.query<{ rec: TenantRecord }>(`UPDATE tenants SET plan = $2 WHERE id = $1 RETURNING ${RECORD} AS rec`, [id, plan]);
    const rec = rows[0]?.rec;
    if (rec) await this.mirror.apply('tenants', id, rec);
    return rec;
  }
}
