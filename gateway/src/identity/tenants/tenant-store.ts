import type { GatewayStore } from '../../storage/gateway-store.js';
import type { Plan } from './plans.js';
import type { PlanChange, PlanSet } from './plan-change.js';
import type { TenantRepository } from '../../storage/repositories.js';

export interface TenantRecord {
  id: string;
  name: string;
  plan: Plan;
  created_at: string;
  /** Bumped on every policy change; `x-svc-policy` is `v<policy_version>`. */
  policy_version: number;
  /** The last change of its plan (absent until one is made). */
  plan_changed?: PlanChange;
}

const TENANT_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function isValidTenantId(id: string): boolean {
  return TENANT_ID.test(id);
}

export class TenantStore implements TenantRepository {
  constructor(private readonly store: GatewayStore) {}

  get(id: string): TenantRecord | undefined {
    return this.store.tenants.get(id) as TenantRecord | undefined;
  }

  list(): TenantRecord[] {
    return [...this.store.tenants.getRange()].map((e) => e.value as TenantRecord);
  }

  /** Creates a tenant; returns undefined when the id is taken. */
  async create(id: string, plan: Plan, name = id): Promise<TenantRecord | undefined> {
    if (!isValidTenantId(id)) throw new RangeError(`invalid tenant id "${id}": lower-case letters, digits, - and _, at most 63`);
    const rec: TenantRecord = { id, name, plan, created_at: new Date().toISOString(), policy_version: 0 };
    const ok = await this.store.tenants.ifNoExists(id, () => this.store.tenants.put(id, rec));
    return ok ? rec : undefined;
  }

  /** Read and written in one transaction, so the change's `from` is the plan it replaced. */
  async setPlan(id: string, plan: Plan, by: string): Promise<PlanSet | undefined> {
    let out: PlanSet | undefined;
    await this.store.root.transaction(() => {
      const cur = this.get(id);
      if (!cur) return;
      if (cur.plan === plan) {
        out = { record: cur, change: null };
        return;
      }
      const change: PlanChange = { from: cur.plan, to: plan, by, at: new Date().toISOString() };
      const record: TenantRecord = { ...cur, plan, plan_changed: change };
      this.store.tenants.put(id, record);
      out = { record, change };
    });
    return out;
  }
}
