import type { PolicyTypeModule } from './kind-module.js';
import type { PolicyAction } from '../policy-record.js';
import { FLOW_ACTIONS, actionField } from './rule-fields.js';

export interface RateLimitRules {
  limit: number;
  window_s: number;
  scope: 'agent' | 'tenant';
  action: PolicyAction;
}

/** More than `limit` requests in a sliding window, per agent or for the whole tenant. */
export const rateLimit: PolicyTypeModule<'rate_limit'> = {
  type: 'rate_limit',
  rulesSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['limit', 'window_s'],
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: 10_000_000 },
      window_s: { type: 'integer', minimum: 1, maximum: 86_400 * 31 },
      scope: { type: 'string', enum: ['agent', 'tenant'], default: 'agent' },
      action: actionField(FLOW_ACTIONS, 'DENY'),
    },
  },
  pack: { name: 'Agent request rate', risk: 40, rules: { limit: 120, window_s: 60, scope: 'agent', action: 'DENY' } },
  compile(p, parts) {
    const r = p.rules;
    parts.checks.push({ kind: 'rate', id: p.id, risk: p.risk, action: r.action, limit: r.limit, windowMs: r.window_s * 1000, perAgent: r.scope === 'agent', index: parts.rateChecks++ });
  },
};
