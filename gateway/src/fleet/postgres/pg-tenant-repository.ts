import type pg from 'pg';
import { isValidTenantId, type TenantRecord } from '../../identity/tenants/tenant-store.js';
import type { Plan } from '../../identity/tenants/plans.js';
import type { PlanSet } from '../../identity/tenants/plan-change.js';
import type { TenantRepository } from '../../storage/repositories.js';
import type { TableSpec } from './mirrored-table.js';
import type { TableMirror } from './table-mirror.js';

// plan_changed only once there was one, as the LMDB record has it.
const RECORD = `jsonb_build_object('id', id, 'name', name, 'plan', plan, 'created_at', created_at, 'policy_version', policy_version) || jsonb_strip_nulls(jsonb_build_object('plan_changed', plan_changed))`;

/**
 * The plan set and the change recorded in one statement; the row is locked by the subquery first, so `from` is the
 * plan this change replaced. The same plan again writes nothing new (the row is rewritten as it was).
 */
const SET_PLAN = `
UPDATE tenants SET
  plan = $2,
  plan_changed = CASE WHEN cur.old_plan = $2 THEN tenants.plan_changed
                      ELSE jsonb_build_object('from', cur.old_plan, 'to', $2::text, 'by', $3::text, 'at', $4::text) END
FROM (SELECT plan AS old_plan FROM tenants WHERE id = $1 FOR UPDATE) AS cur
WHERE tenants.id = $1
RETURNING ${RECORD} AS rec, cur.old_plan`;

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

  async setPlan(id: string, plan: Plan, by: string): Promise<PlanSet | undefined> {
    const { rows } = await this.pool.query<{ rec: TenantRecord; old_plan: Plan }>(SET_PLAN, [id, plan, by, new Date().toISOString()]);
    const row = rows[0];
    if (!row) return undefined;
    // Read back rather than applied: two changes at once may come back in either order, and the mirror must end on the
    // one committed last (a read queued after both commits sees it).
    await this.mirror.refresh('tenants', id);
    return { record: row.rec, change: row.old_plan === plan ? null : (row.rec.plan_changed ?? null) };
  }
}
