import type { Database } from 'lmdb';
import { CompiledSets, type SetLimits } from './compiled-sets.js';
import { PlanAdmission } from './plan-admission.js';
import { TenantLimits, type EvaluationBudget } from './tenant-limits.js';
import { createPolicyStateMemory, type PolicyStateMemory } from '../tenant-state.js';
import { createPlanBucketMemory } from '../../identity/tenants/plan-buckets.js';
import type { SharedTableMemory } from '../../platform/shared-table.js';
import type { SharedLimits } from '../../fleet/limits/shared-limits.js';
import type { PolicyRepository, TenantRepository } from '../../storage/repositories.js';
import type { GatewayConfig } from '../../config.js';

/** The limits a gateway (or control plane) compiles and evaluates policies under, from its settings. */
export function evaluationLimits(config: GatewayConfig): EvaluationLimits {
  return {
    maxPolicies: config.policyMaxPolicies,
    maxPatterns: config.policyMaxPatterns,
    maxPatternSize: config.policyMaxPatternSize,
    maxProgramSize: config.policyMaxProgramSize,
    maxTextChars: config.evalMaxTextChars,
    evalBurstMs: config.evalTimeBurstMs,
    evalPerSecondMs: config.evalTimePerSecondMs,
  };
}

/**
 * The shared memory behind the limits a process counts (plan buckets; rate windows, session risk and spend): made
 * once per process and handed to every thread that serves requests, so each limit is counted once.
 */
export interface LimitMemory {
  readonly planBuckets: SharedTableMemory;
  readonly policyState: PolicyStateMemory;
}

export function createLimitMemory(): LimitMemory {
  return { planBuckets: createPlanBucketMemory(), policyState: createPolicyStateMemory() };
}

/** What a tenant's policy set may cost (compile time, text scanned) and the evaluation time a tenant may use. */
export interface EvaluationLimits extends SetLimits, EvaluationBudget {}

/**
 * Per-tenant things the request path needs ready, in three parts that share no cache: the compiled policy sets
 * (`sets`), the policy state and evaluation budget judging counts against (`limits`), the plan and its rate limit
 * (`admission`). Callers on the request path take the part they use.
 */
export class TenantRuntimes {
  readonly sets: CompiledSets;
  readonly limits: TenantLimits;
  readonly admission: PlanAdmission;

  constructor(
    tenants: TenantRepository,
    policies: PolicyRepository,
    counters: Database,
    limits: EvaluationLimits,
    now: () => number = Date.now,
    memory: LimitMemory = createLimitMemory(),
  ) {
    this.sets = new CompiledSets(policies, limits);
    this.limits = new TenantLimits(counters, limits, now, memory.policyState);
    this.admission = new PlanAdmission(tenants, now, memory.planBuckets);
  }

  /** Counts plan limits, `rate_limit` policy windows and spend on Redis from now on (set once at start when REDIS_URL is set). */
  useSharedLimits(shared: SharedLimits): void {
    this.limits.useSharedLimits(shared);
    this.admission.useSharedLimits(shared);
  }
}
