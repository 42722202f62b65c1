import { newId } from '@aduana/shared';
import type { GatewayStore } from '../storage/gateway-store.js';
import type { TenantRecord } from '../tenants/tenant-store.js';
import type { PolicyRecord, PolicyType, Rules } from './types.js';
import type { PolicyCreate, PolicyPatch } from './validate-policy.js';

export interface PolicyPage {
  data: PolicyRecord[];
  cursor: string | null;
  total: number;
}

/**
 * Policies in LMDB under [tenant id, policy id]; ids are ULID-based, so key order is creation order. Every change
 * bumps the tenant's policy_version in the same transaction, so the version a compiled evaluator carries always
 * names exactly one policy set.
 */
export class PolicyStore {
  constructor(private readonly store: GatewayStore) {}

  get(tenantId: string, id: string): PolicyRecord | undefined {
    return this.store.policies.get([tenantId, id]) as PolicyRecord | undefined;
  }

  all(tenantId: string): PolicyRecord[] {
    const out: PolicyRecord[] = [];
    for (const { value } of this.store.policies.getRange({ start: [tenantId], end: [tenantId, '\uffff'] })) out.push(value as PolicyRecord);
    return out;
  }

  page(tenantId: string, limit: number, cursor: string | null, onlyEnabled: boolean): PolicyPage {
    const all = this.all(tenantId).filter((p) => !onlyEnabled || p.enabled);
    const startIdx = cursor ? all.findIndex((p) => p.id > cursor) : 0;
    const from = startIdx < 0 ? all.length : startIdx;
    const data = all.slice(from, from + limit);
    const more = from + limit < all.length;
    return { data, cursor: more && data.length > 0 ? (data[data.length - 1] as PolicyRecord).id : null, total: all.length };
  }

  async create(tenantId: string, input: PolicyCreate, packKey: string | null = null): Promise<PolicyRecord> {
    const now = new Date().toISOString();
    const rec: PolicyRecord = {
      id: newId('pol'),
      tenant_id: tenantId,
      name: input.name,
      type: input.type,
      risk: input.risk,
      enabled: input.enabled,
      rules: input.rules,
      created_at: now,
      updated_at: now,
      pack_key: packKey,
    };
    await this.#write(tenantId, () => this.store.policies.put([tenantId, rec.id], rec));
    return rec;
  }

  async update(tenantId: string, current: PolicyRecord, patch: PolicyPatch): Promise<PolicyRecord> {
    const next: PolicyRecord = {
      ...current,
      name: patch.name ?? current.name,
      risk: patch.risk ?? current.risk,
      enabled: patch.enabled ?? current.enabled,
      rules: (patch.rules ?? current.rules) as Rules,
      updated_at: new Date().toISOString(),
    };
    await this.#write(tenantId, () => this.store.policies.put([tenantId, current.id], next));
    return next;
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    let found = false;
    await this.#write(tenantId, () => {
      found = this.store.policies.get([tenantId, id]) !== undefined;
      if (found) this.store.policies.remove([tenantId, id]);
    });
    return found;
  }

  /** Creates the given pack policies whose key is not present yet, atomically, bumping the version once. */
  async applyPack(
    tenantId: string,
    items: readonly { key: string; input: PolicyCreate }[],
  ): Promise<{ created: PolicyRecord[]; existing: PolicyRecord[] }> {
    const created: PolicyRecord[] = [];
    const existing: PolicyRecord[] = [];
    await this.store.root.transaction(() => {
      const present = new Map<string, PolicyRecord>();
      for (const p of this.all(tenantId)) if (p.pack_key) present.set(p.pack_key, p);
      const now = new Date().toISOString();
      for (const { key, input } of items) {
        const have = present.get(key);
        if (have) {
          existing.push(have);
          continue;
        }
        const rec: PolicyRecord = {
          id: newId('pol'),
          tenant_id: tenantId,
          name: input.name,
          type: input.type as PolicyType,
          risk: input.risk,
          enabled: input.enabled,
          rules: input.rules,
          created_at: now,
          updated_at: now,
          pack_key: key,
        };
        this.store.policies.put([tenantId, rec.id], rec);
        created.push(rec);
      }
      if (created.length > 0) this.#bump(tenantId);
    });
    return { created, existing };
  }

  version(tenantId: string): number {
    return (this.store.tenants.get(tenantId) as TenantRecord | undefined)?.policy_version ?? 0;
  }

  async #write(tenantId: string, fn: () => void): Promise<void> {
    await this.store.root.transaction(() => {
      fn();
      this.#bump(tenantId);
    });
  }

  #bump(tenantId: string): void {
    const t = this.store.tenants.get(tenantId) as TenantRecord | undefined;
    if (t) this.store.tenants.put(tenantId, { ...t, policy_version: t.policy_version + 1 });
  }
}
