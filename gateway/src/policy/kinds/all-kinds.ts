import type { CompiledParts } from '../compiled-parts.js';
import type { PolicyTypeModule } from './kind-module.js';
import type { PolicyRecord, PolicyType } from '../policy-record.js';
import { bondEnforcement } from './bond-enforcement.js';
import { budget } from './budget.js';
import { contentFilter } from './content-filter.js';
import { entropyCheck } from './entropy-check.js';
import { hallucinationShield } from './hallucination-shield.js';
import { modelAccess } from './model-access.js';
import { piiRedaction } from './pii-redaction.js';
import { rateLimit } from './rate-limit.js';
import { toolAccess } from './tool-access.js';

/** Every policy type, by name: a type listed in POLICY_TYPES without a module here does not compile. */
export const POLICY_TYPE_TABLE: { readonly [T in PolicyType]: PolicyTypeModule<T> } = {
  rate_limit: rateLimit,
  content_filter: contentFilter,
  entropy_check: entropyCheck,
  pii_redaction: piiRedaction,
  bond_enforcement: bondEnforcement,
  hallucination_shield: hallucinationShield,
  budget,
  tool_access: toolAccess,
  model_access: modelAccess,
};

/** The module of a type, typed for any policy (the table's per-type typing is lost once the type is a variable). */
export function policyTypeOf(type: PolicyType): PolicyTypeModule<PolicyType> {
  return POLICY_TYPE_TABLE[type] as PolicyTypeModule<PolicyType>;
}

/** Adds one enabled policy to the evaluator being compiled. */
export function compilePolicy(policy: PolicyRecord, parts: CompiledParts): void {
  policyTypeOf(policy.type).compile(policy, parts);
}
