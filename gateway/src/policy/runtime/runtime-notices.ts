import { NoticeSlot } from '../../platform/notice-slot.js';

/**
 * A tenant's policies or plan changed on the main thread (`CompiledSets.onChange`, `PlanAdmission.onChange`): a
 * request thread drops its compiled sets (compiled again on the next request) or reads the plan again.
 */
export const TENANT_RUNTIME_CHANGES = new NoticeSlot<{ readonly tenantId: string; readonly what: 'policies' | 'plan' }>('tenant-runtimes');
