import { newId } from '@aduana/shared';
import type { GatewayStore } from '../storage/gateway-store.js';
import type { TenantRecord } from '../identity/tenants/tenant-store.js';
import type { PolicyRecord, PolicyType, Rules } from './policy-record.js';
import type { PolicyCreate, PolicyPatch } from './validate-policy.js';
import type { PolicyRepository } from '../storage/repositories.js';

/**
 * Builds (and so checks) the tenant's policy set as it would be after a change: called inside the change's
 * transaction, before anything is written; throwing aborts the change, so a set that cannot run is never stored.
 */
export type CompileCandidate<T> = (candidate: readonly PolicyRecord[], version: number) => T;

/**
 * A page of a tenant's policies (in id order); `enabled` keeps only the active (true) or disabled (false) ones, null
 * all. Both backends page their policies this way.
 */
export function pagePolicies(policies: readonly PolicyRecord[], limit: number, cursor: string | null, enabled: boolean | null): PolicyPage {
  const all = policies.filter((p) => enabled === null || p.enabled === enabled);
  const startIdx = cursor ? all.findIndex((p) => p.id > cursor) : 0;
  const from = startIdx < 0 ? all.length : startIdx;
  const data = all.slice(from, from + limit);
  const more = from + limit < all.length;
  return { data, cursor: more && data.length > 0 ? (data[data.length - 1] as PolicyRecord).id : null, total: all.length };
}

export interface PolicyPage {
  data: PolicyRecord[];
  cursor: string | null;
  total: number;
}

/** A new policy's record (both backends make them here); `packKey` names the pack item it came from. */
export function newPolicyRecord(tenantId: string, input: PolicyCreate, packKey: string | null, now: string): PolicyRecord {
  return {
    id: newId('pol'),
    tenant_id: tenantId,
    name: input.name,
    type: input.type as PolicyType,
    risk: input.risk,
    enabled: input.enabled,
    rules: input.rules,
    ...(input.scope === undefined ? {} : { scope: input.scope }),
    created_at: now,
    updated_at: now,
    pack_key: packKey,
  };
}

/** A policy with a patch applied (type and id never change; a `scope` of null removes the scope). */
export function patchedPolicy(current: PolicyRecord, patch: PolicyPatch): PolicyRecord {
  const next: PolicyRecord = {
    ...current,
    name: patch.name ?? current.name,
    risk: patch.risk ?? current.risk,
    enabled: patch.enabled ?? current.enabled,
    rules: (patch.rules ?? current.rules) as Rules,
    updated_at: new Date().toISOString(),
  };
  if (patch.scope === null) delete next.scope;
  else if (patch.scope !== undefined) next.scope = patch.scope;
  return next;
}

/**
 * Policies in LMDB under [tenant id, policy id]; ids are ULID-based, so key order is creation order. Every change
 * bumps the tenant's policy_version in the same transaction, so the version a compiled evaluator carries always
 * names exactly one policy set.
 */
export class PolicyStore implements PolicyRepository {
  constructor(private readonly store: GatewayStore) {}

  get(tenantId: string, id: string): PolicyRecord | undefined {
    return this.store.policies.get([tenantId, id]) as PolicyRecord | undefined;
  }

  all(tenantId: string): PolicyRecord[] {
    const out: PolicyRecord[] = [];
    for (const { value } of this.store.policies.getRange({ start: [tenantId], end: [tenantId, '\uffff'] })) out.push(value as PolicyRecord);
    return out;
  }

  page(tenantId: string, limit: number, cursor: string | null, enabled: boolean | null): PolicyPage {
    return pagePolicies(this.all(tenantId), limit, cursor, enabled);
  }

  async create<T>(tenantId: string, input: PolicyCreate, compile: CompileCandidate<T>): Promise<{ record: PolicyRecord; compiled: T }> {
    const rec = newPolicyRecord(tenantId, input, null, new Date().toISOString());
    const compiled = await this.#write(tenantId, (current) => [...current, rec], compile, () => this.store.policies.put([tenantId, rec.id], rec));
    return { record: rec, compiled };
  }

  async update<T>(tenantId: string, current: PolicyRecord, patch: PolicyPatch, compile: CompileCandidate<T>): Promise<{ record: PolicyRecord; compiled: T }> {
    const next = patchedPolicy(current, patch);
    const compiled = await this.#write(
      tenantId,
      (all) => all.map((p) => (p.id === current.id ? next : p)),
      compile,
      () => this.store.policies.put([tenantId, current.id], next),
    );
    return { record: next, compiled };
  }

  /** Removes a policy; `compiled` is null when there was none (nothing changed). */
  async remove<T>(tenantId: string, id: string, compile: CompileCandidate<T>): Promise<T | null> {
    let compiled: T | null = null;
    await this.store.root.transaction(() => {
      const all = this.all(tenantId);
      if (!all.some((p) => p.id === id)) return;
      compiled = compile(
        all.filter((p) => p.id !== id),
        this.version(tenantId) + 1,
      );
      this.store.policies.remove([tenantId, id]);
      this.#bump(tenantId);
    });
    return compiled;
  }

  /** Creates the given pack policies whose key is not present yet, atomically, bumping the version once. */
  async applyPack<T>(
    tenantId: string,
    items: readonly { key: string; input: PolicyCreate }[],
    compile: CompileCandidate<T>,
  ): Promise<{ created: PolicyRecord[]; existing: PolicyRecord[]; compiled: T | null }> {
    const created: PolicyRecord[] = [];
    const existing: PolicyRecord[] = [];
    let compiled: T | null = null;
    await this.store.root.transaction(() => {
      const present = new Map<string, PolicyRecord>();
      const all = this.all(tenantId);
      for (const p of all) if (p.pack_key) present.set(p.pack_key, p);
      const now = new Date().toISOString();
      for (const { key, input } of items) {
        const have = present.get(key);
        if (have) {
          existing.push(have);
          continue;
        }
        const rec = newPolicyRecord(tenantId, input, key, now);
        created.push(rec);
      }
      if (created.length === 0) return;
      compiled = compile([...all, ...created], this.version(tenantId) + 1);
      for (const rec of created) this.store.policies.put([tenantId, rec.id], rec);
      this.#bump(tenantId);
    });
    return { created, existing, compiled };
  }

  version(tenantId: string): number {
    return (this.store.tenants.get(tenantId) as TenantRecord | undefined)?.policy_version ?? 0;
  }

  /** One change: the candidate set is compiled first (inside the transaction, so it sees what is committed), then written. */
  async #write<T>(tenantId: string, candidate: (current: PolicyRecord[]) => PolicyRecord[], compile: CompileCandidate<T>, write: () => void): Promise<T> {
    let compiled: T | undefined;
    await this.store.root.transaction(() => {
      compiled = compile(candidate(this.all(tenantId)), this.version(tenantId) + 1);
      write();
      this.#bump(tenantId);
    });
    return compiled as T;
  }

  #bump(tenantId: string): void {
    const t = this.store.tenants.get(tenantId) as TenantRecord | undefined;
    if (t) this.store.tenants.put(tenantId, { ...t, policy_version: t.policy_version + 1 });
  }
}
