/** Policy model (docs/policies.md, "Types"). Each type's rules, schema and compile step live in `types/<type>.ts`. */
import type { BondEnforcementRules } from './kinds/bond-enforcement.js';
import type { BudgetRules } from './kinds/budget.js';
import type { ContentFilterRules } from './kinds/content-filter.js';
import type { EntropyCheckRules } from './kinds/entropy-check.js';
import type { HallucinationShieldRules } from './kinds/hallucination-shield.js';
import type { ModelAccessRules } from './kinds/model-access.js';
import type { PiiRedactionRules } from './kinds/pii-redaction.js';
import type { RateLimitRules } from './kinds/rate-limit.js';
import type { ToolAccessRules } from './kinds/tool-access.js';
import type { PolicyScope } from './policy-scope.js';

export type { BondEnforcementRules, BudgetRules, ContentFilterRules, EntropyCheckRules, HallucinationShieldRules, ModelAccessRules, PiiRedactionRules, RateLimitRules, ToolAccessRules };

export const POLICY_TYPES = [
  'rate_limit',
  'content_filter',
  'entropy_check',
  'pii_redaction',
  'bond_enforcement',
  'hallucination_shield',
  'budget',
  'tool_access',
  'model_access',
] as const;
export type PolicyType = (typeof POLICY_TYPES)[number];

/** What a triggered policy does. REDACT (PII only) rewrites and allows; FLAG allows and adds risk. */
export const ACTIONS = ['DENY', 'ESCALATE', 'REQUIRE_APPROVAL', 'REDACT', 'FLAG'] as const;
export type PolicyAction = (typeof ACTIONS)[number];

// Verdicts are ordered in one place; re-exported here for modules that still import them from the policy model.
export { VERDICT_RANK, verdictOf, type Verdict } from './verdict.js';

export type Target = 'input' | 'output' | 'both';

export interface RulesByType {
  rate_limit: RateLimitRules;
  content_filter: ContentFilterRules;
  entropy_check: EntropyCheckRules;
  pii_redaction: PiiRedactionRules;
  bond_enforcement: BondEnforcementRules;
  hallucination_shield: HallucinationShieldRules;
  budget: BudgetRules;
  tool_access: ToolAccessRules;
  model_access: ModelAccessRules;
}

export type Rules = RulesByType[PolicyType];

export interface PolicyRecord<T extends PolicyType = PolicyType> {
  id: string;
  tenant_id: string;
  name: string;
  type: T;
  risk: number;
  enabled: boolean;
  rules: RulesByType[T];
  /** Where it applies (docs/policies.md, "Scope"); absent: every action, in and out. */
  scope?: PolicyScope;
  created_at: string;
  updated_at: string;
  /** Set on policies created by a pack: `<type>` key that makes applying a pack idempotent. */
  pack_key: string | null;
}
