import type { PolicyTypeModule } from './kind-module.js';
import type { PolicyAction } from '../policy-record.js';
import { FLOW_ACTIONS, actionField } from './rule-fields.js';

export interface BondEnforcementRules {
  action: PolicyAction;
  /** Session risk budget used when neither the request nor the agent gives one. */
  default_budget: number | null;
  /** Ceiling on any budget: a budget the caller claims (context.risk_budget) never exceeds it. null: no ceiling. */
  max_risk_budget: number | null;
}

/** A session's accumulated risk would pass its budget. */
export const bondEnforcement: PolicyTypeModule<'bond_enforcement'> = {
  type: 'bond_enforcement',
  rulesSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      action: actionField(FLOW_ACTIONS, 'REQUIRE_APPROVAL'),
      default_budget: { type: ['number', 'null'], minimum: 0, default: null },
      max_risk_budget: { type: ['number', 'null'], minimum: 0, default: null },
    },
  },
  pack: { name: 'Session risk budget', risk: 50, rules: { action: 'REQUIRE_APPROVAL', default_budget: null } },
  compile(p, parts) {
    const r = p.rules;
    parts.bonds.push({ id: p.id, risk: p.risk, action: r.action, defaultBudget: r.default_budget, maxBudget: r.max_risk_budget ?? null });
  },
};
