import type { PolicyTypeModule } from './kind-module.js';
import type { PolicyAction } from '../policy-record.js';
import { FLOW_ACTIONS, actionField } from './rule-fields.js';

export interface HallucinationShieldRules {
  action: PolicyAction;
  target: 'output';
}

/** Claims in the answer found nowhere in the request, and tool calls that do not fit the declared tools (proxy only). */
export const hallucinationShield: PolicyTypeModule<'hallucination_shield'> = {
  type: 'hallucination_shield',
  rulesSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      action: actionField(FLOW_ACTIONS, 'FLAG'),
      target: { type: 'string', enum: ['output'], default: 'output' },
    },
  },
  pack: { name: 'Unsupported citations and invalid tool calls', risk: 30, rules: { action: 'FLAG', target: 'output' } },
  compile(p, parts) {
    parts.shields.push({ id: p.id, risk: p.risk, action: p.rules.action });
  },
};
