import type { PolicyTypeModule } from './kind-module.js';
import type { PolicyAction } from '../policy-record.js';
import { FLOW_ACTIONS, actionField } from './rule-fields.js';

export interface BudgetRules {
  max_cost_brl: number;
  period: 'day' | 'month';
  /** `agent`: each agent id its own total; `tenant`: one total for all of the tenant's calls. */
  scope: 'agent' | 'tenant';
  action: PolicyAction;
}

/** An agent's (or the tenant's) spend this period has reached its ceiling. */
export const budget: PolicyTypeModule<'budget'> = {
  type: 'budget',
  rulesSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['max_cost_brl'],
    properties: {
      max_cost_brl: { type: 'number', exclusiveMinimum: 0 },
      period: { type: 'string', enum: ['day', 'month'], default: 'month' },
      scope: { type: 'string', enum: ['agent', 'tenant'], default: 'agent' },
      action: actionField(FLOW_ACTIONS, 'DENY'),
    },
  },
  pack: null,
  compile(p, parts) {
    const r = p.rules;
    parts.checks.push({ kind: 'budget', id: p.id, risk: p.risk, action: r.action, max: r.max_cost_brl, period: r.period, perAgent: r.scope !== 'tenant' });
  },
};
