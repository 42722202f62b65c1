import { GatewayError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import { assertValid, OwnSchema } from '../platform/gateway-ajv.js';
import { PLAN_NAMES, type Plan } from '../identity/tenants/plans.js';
import type { PlanChange } from '../identity/tenants/plan-change.js';
import type { TenantRepository } from '../storage/repositories.js';
import type { TenantRuntimes } from '../policy/runtime/tenant-runtime.js';

const validatePlan = new OwnSchema({
  type: 'object',
  additionalProperties: false,
  required: ['plan'],
  properties: { plan: { type: 'string', enum: PLAN_NAMES } },
});

export interface TenantRouteDeps {
  tenants: TenantRepository;
  runtimes: Pick<TenantRuntimes, 'admission'>;
  /**
   * Records a change once it is stored: the embedded gateway chains it in the tenant's ledger, a control plane in its
   * own chain of the tenant (and each sidecar chains it too when its bundle brings the new plan).
   */
  onPlanChanged(tenantId: string, change: PlanChange, traceId: string): Promise<void>;
}

/**
 * `PUT /admin/tenants/{id}/plan` `{plan}` (docs/decisions.md, "Limits (plans)"): an admin changes its own tenant's
 * plan. There is no platform administrator: another tenant's id is a 403, whether or not that tenant exists, as a
 * `tenant_id` naming another tenant is everywhere.
 */
export function registerTenantRoutes(server: HttpServer, deps: TenantRouteDeps): void {
  const { tenants, runtimes } = deps;

  server.route('put', '/admin/tenants/:id/plan', { auth: 'pat', scope: 'admin:manage', body: 'json' }, async (ctx) => {
    const tenantId = ctx.params[0] as string;
    if (tenantId !== ctx.auth.tenantId) throw new GatewayError('tenant_mismatch');
    assertValid(validatePlan, ctx.body);
    const set = await tenants.setPlan(tenantId, (ctx.body as { plan: Plan }).plan, ctx.auth.id);
    if (!set) throw new GatewayError('not_found', 'tenant not found');
    if (set.change) {
      runtimes.admission.refreshPlan(tenantId);
      await deps.onPlanChanged(tenantId, set.change, ctx.trace.traceId);
    }
    return { status: 200, body: set.record };
  });
}
