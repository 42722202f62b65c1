import type pg from 'pg';
import { newPolicyRecord, pagePolicies, patchedPolicy, type CompileCandidate, type PolicyPage } from '../../policy/policy-store.js';
import type { PolicyRecord } from '../../policy/policy-record.js';
import type { PolicyCreate, PolicyPatch } from '../../policy/validate-policy.js';
import type { TenantRecord } from '../../identity/tenants/tenant-store.js';
import type { PolicyRepository } from '../../storage/repositories.js';
import { withTransaction } from './database.js';
import type { TableSpec } from './mirrored-table.js';
import type { TableMirror } from './table-mirror.js';

export const POLICIES: TableSpec<PolicyRecord> = {
  table: 'policies',
  selectAll: `SELECT tenant_id || '/' || id AS key, record AS rec FROM policies`,
  selectOne: `SELECT tenant_id || '/' || id AS key, record AS rec FROM policies WHERE tenant_id = $1 AND id = $2`,
  groupOf: (r) => r.tenant_id,
};

/** What one change did, applied to the mirror once it has committed. */
interface Change<T> {
  result: T;
  upserts: PolicyRecord[];
  removed: string[];
  version: number | null;
}

const UPSERT = 'INSERT INTO policies (tenant_id, id, pack_key, record) VALUES ($1, $2, $3, $4) ON CONFLICT (tenant_id, id) DO UPDATE SET record = EXCLUDED.record';

/**
 * Policies on PostgreSQL. A change runs in one transaction that first locks the tenant's row (SELECT … FOR UPDATE),
 * so two changes to one tenant on two replicas serialise; it reads the committed set, compiles the candidate (a set
 * that does not compile throws and changes nothing), writes, and bumps the tenant's policy_version.
 */
export class PgPolicyRepository implements PolicyRepository {
  constructor(
    private readonly pool: pg.Pool,
    private readonly mirror: TableMirror,
  ) {}

  get(tenantId: string, id: string): PolicyRecord | undefined {
    return this.mirror.table<PolicyRecord>('policies').get(`${tenantId}/${id}`);
  }

  all(tenantId: string): PolicyRecord[] {
    return sortById(this.mirror.table<PolicyRecord>('policies').group(tenantId));
  }

  page(tenantId: string, limit: number, cursor: string | null, enabled: boolean | null): PolicyPage {
    return pagePolicies(this.all(tenantId), limit, cursor, enabled);
  }


  version(tenantId: string): number {
    return this.mirror.table<TenantRecord>('tenants').get(tenantId)?.policy_version ?? 0;
  }

  async create<T>(tenantId: string, input: PolicyCreate, compile: CompileCandidate<T>): Promise<{ record: PolicyRecord; compiled: T }> {
    const rec = newPolicyRecord(tenantId, input, null, new Date().toISOString());
    const compiled = await this.#change(tenantId, async (c, all, version) => {
      const result = compile([...all, rec], version + 1);
      await c.query(UPSERT, [tenantId, rec.id, null, rec]);
      return { result, upserts: [rec], removed: [] };
    });
    return { record: rec, compiled: compiled as T };
  }

  async update<T>(tenantId: string, current: PolicyRecord, patch: PolicyPatch, compile: CompileCandidate<T>): Promise<{ record: PolicyRecord; compiled: T }> {
    const next = patchedPolicy(current, patch);
    const compiled = await this.#change(tenantId, async (c, all, version) => {
      const result = compile(
        all.map((p) => (p.id === current.id ? next : p)),
        version + 1,
      );
      await c.query(UPSERT, [tenantId, next.id, next.pack_key, next]);
      return { result, upserts: [next], removed: [] };
    });
    return { record: next, compiled: compiled as T };
  }

  async remove<T>(tenantId: string, id: string, compile: CompileCandidate<T>): Promise<T | null> {
    return this.#change(tenantId, async (c, all, version) => {
      if (!all.some((p) => p.id === id)) return null;
      const result = compile(
        all.filter((p) => p.id !== id),
        version + 1,
      );
      await c.query('DELETE FROM policies WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
      return { result, upserts: [], removed: [id] };
    });
  }

  async applyPack<T>(
    tenantId: string,
    items: readonly { key: string; input: PolicyCreate }[],
    compile: CompileCandidate<T>,
  ): Promise<{ created: PolicyRecord[]; existing: PolicyRecord[]; compiled: T | null }> {
    const created: PolicyRecord[] = [];
    const existing: PolicyRecord[] = [];
    const compiled = await this.#change(tenantId, async (c, all, version) => {
      const present = new Map<string, PolicyRecord>();
      for (const p of all) if (p.pack_key) present.set(p.pack_key, p);
      const now = new Date().toISOString();
      for (const { key, input } of items) {
        const have = present.get(key);
        if (have) existing.push(have);
        else created.push(newPolicyRecord(tenantId, input, key, now));
      }
      if (created.length === 0) return null;
      const result = compile([...all, ...created], version + 1);
      for (const rec of created) await c.query(UPSERT, [tenantId, rec.id, rec.pack_key, rec]);
      return { result, upserts: created, removed: [] };
    });
    return { created, existing, compiled };
  }

  /**
   * One change in one transaction. `work` returns null when there is nothing to change (no write, no bump). A tenant
   * without a row still has its policies written (as the LMDB store does), with no version to bump.
   */
  async #change<T>(
    tenantId: string,
    work: (c: pg.PoolClient, all: PolicyRecord[], version: number) => Promise<Omit<Change<T>, 'version'> | null>,
  ): Promise<T | null> {
    const change = await withTransaction(this.pool, async (c): Promise<Change<T> | null> => {
      const locked = await c.query<{ policy_version: number }>('SELECT policy_version FROM tenants WHERE id = $1 FOR UPDATE', [tenantId]);
      const version = locked.rows[0]?.policy_version ?? null;
      const { rows } = await c.query<{ record: PolicyRecord }>('SELECT record FROM policies WHERE tenant_id = $1 ORDER BY id', [tenantId]);
      const out = await work(
        c,
        rows.map((r) => r.record),
        version ?? 0,
      );
      if (!out) return null;
      if (version !== null) await c.query('UPDATE tenants SET policy_version = policy_version + 1 WHERE id = $1', [tenantId]);
      return { ...out, version: version === null ? null : version + 1 };
    });
    if (!change) return null;
    for (const rec of change.upserts) await this.mirror.apply('policies', `${tenantId}/${rec.id}`, rec);
    for (const id of change.removed) await this.mirror.apply<PolicyRecord>('policies', `${tenantId}/${id}`, undefined);
    const tenant = this.mirror.table<TenantRecord>('tenants').get(tenantId);
    if (tenant && change.version !== null && change.version > tenant.policy_version) await this.mirror.apply('tenants', tenantId, { ...tenant, policy_version: change.version });
    return change.result;
  }
}

function sortById(list: PolicyRecord[]): PolicyRecord[] {
  return list.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
