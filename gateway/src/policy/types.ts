/** Policy model (docs/policies.md, "Types"). */

export const POLICY_TYPES = [
  'rate_limit',
  'content_filter',
  'entropy_check',
  'pii_redaction',
  'bond_enforcement',
  'hallucination_shield',
  'budget',
] as const;
export type PolicyType = (typeof POLICY_TYPES)[number];

/** What a triggered policy does. REDACT (PII only) rewrites and allows; FLAG allows and adds risk. */
export const ACTIONS = ['DENY', 'ESCALATE', 'REQUIRE_APPROVAL', 'REDACT', 'FLAG'] as const;
export type PolicyAction = (typeof ACTIONS)[number];

// Verdicts are ordered in one place; re-exported here for modules that still import them from the policy model.
export { VERDICT_RANK, verdictOf, type Verdict } from './verdict.js';

export type Target = 'input' | 'output' | 'both';

export interface RateLimitRules {
  limit: number;
  window_s: number;
  scope: 'agent' | 'tenant';
  action: PolicyAction;
}
export interface ContentFilterRules {
  patterns: string[];
  action: PolicyAction;
  target: Target;
  case_insensitive: boolean;
}
export interface EntropyCheckRules {
  min_length: number;
  threshold_bits: number;
  action: PolicyAction;
}
export interface PiiRedactionRules {
  entities: string[];
  action: 'REDACT' | 'DENY';
  target: Target;
}
export interface BondEnforcementRules {
  action: PolicyAction;
  /** Session risk budget used when neither the request nor the agent gives one. */
  default_budget: number | null;
  /** Ceiling on any budget: a budget the caller claims (context.risk_budget) never exceeds it. null: no ceiling. */
  max_risk_budget: number | null;
}
export interface HallucinationShieldRules {
  action: PolicyAction;
  target: 'output';
}
export interface BudgetRules {
  max_cost_brl: number;
  period: 'day' | 'month';
  /** `agent`: each agent id its own total; `tenant`: one total for all of the tenant's calls. */
  scope: 'agent' | 'tenant';
  action: PolicyAction;
}

export interface RulesByType {
  rate_limit: RateLimitRules;
  content_filter: ContentFilterRules;
  entropy_check: EntropyCheckRules;
  pii_redaction: PiiRedactionRules;
  bond_enforcement: BondEnforcementRules;
  hallucination_shield: HallucinationShieldRules;
  budget: BudgetRules;
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
  created_at: string;
  updated_at: string;
  /** Set on policies created by a pack: `<type>` key that makes applying a pack idempotent. */
  pack_key: string | null;
}
