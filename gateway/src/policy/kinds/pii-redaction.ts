import { ALL_PII_ENTITIES } from '../pii/index.js';
import type { PolicyTypeModule } from './kind-module.js';
import type { Target } from '../policy-record.js';
import { actionField, targetField } from './rule-fields.js';

export interface PiiRedactionRules {
  entities: string[];
  action: 'REDACT' | 'DENY';
  target: Target;
}

/** Personal data in the input and/or the answer: rewritten (REDACT) or refused (DENY). */
export const piiRedaction: PolicyTypeModule<'pii_redaction'> = {
  type: 'pii_redaction',
  rulesSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      entities: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: ALL_PII_ENTITIES }, default: [...ALL_PII_ENTITIES] },
      action: actionField(['REDACT', 'DENY'], 'REDACT'),
      target: targetField('both'),
    },
  },
  pack: { name: 'Personal data redaction', risk: 20, rules: { action: 'REDACT', target: 'both' } },
  compile(p, parts) {
    const r = p.rules;
    const pol = { id: p.id, risk: p.risk, action: r.action, entities: new Set(r.entities) };
    if (r.target !== 'output') parts.piiIn.push(pol);
    if (r.target !== 'input') parts.piiOut.push(pol);
  },
};
