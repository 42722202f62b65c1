import type { PolicyTypeModule } from './kind-module.js';
import type { PolicyAction } from '../policy-record.js';
import { FLOW_ACTIONS, actionField } from './rule-fields.js';

export interface EntropyCheckRules {
  min_length: number;
  threshold_bits: number;
  action: PolicyAction;
}

/** A long key-like token of high Shannon entropy in the input (a leaked secret). */
export const entropyCheck: PolicyTypeModule<'entropy_check'> = {
  type: 'entropy_check',
  rulesSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      min_length: { type: 'integer', minimum: 8, maximum: 4096, default: 24 },
      threshold_bits: { type: 'number', minimum: 0, maximum: 8, default: 4.5 },
      action: actionField(FLOW_ACTIONS, 'DENY'),
    },
  },
  pack: { name: 'Leaked secrets (high-entropy tokens)', risk: 70, rules: { min_length: 32, threshold_bits: 4.5, action: 'DENY' } },
  compile(p, parts) {
    const r = p.rules;
    parts.checks.push({ kind: 'entropy', id: p.id, risk: p.risk, action: r.action, minLength: r.min_length, threshold: r.threshold_bits, index: parts.entropyChecks++ });
  },
};
