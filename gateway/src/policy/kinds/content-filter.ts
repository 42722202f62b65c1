import RE2 from 're2';
import { GatewayError } from '../../errors.js';
import type { PolicyTypeModule } from './kind-module.js';
import type { PolicyAction, Target } from '../policy-record.js';
import { FLOW_ACTIONS, actionField, targetField } from './rule-fields.js';

export interface ContentFilterRules {
  patterns: string[];
  action: PolicyAction;
  target: Target;
  case_insensitive: boolean;
}

/** RE2 patterns over the input's text and/or the answer; all of a tenant's patterns of a side scan as one set. */
export const contentFilter: PolicyTypeModule<'content_filter'> = {
  type: 'content_filter',
  rulesSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['patterns'],
    properties: {
      patterns: { type: 'array', minItems: 1, maxItems: 500, items: { type: 'string', minLength: 1, maxLength: 2000 } },
      action: actionField(FLOW_ACTIONS, 'DENY'),
      target: targetField('input'),
      case_insensitive: { type: 'boolean', default: false },
    },
  },
  pack: {
    name: 'Destructive and injection content',
    risk: 80,
    rules: {
      // Prompt-injection phrasing and destructive commands: high-precision phrases, not single words.
      patterns: [
        '(?i)ignore (all |any )?(previous|prior|above) (instructions|prompts)',
        '(?i)disregard (all |any )?(previous|prior|your) (instructions|rules)',
        '(?i)\\bdrop\\s+(table|database)\\b',
        '(?i)\\btruncate\\s+table\\b',
        '(?i)\\brm\\s+-rf\\s+/',
        '(?i)\\bformat\\s+c:',
      ],
      action: 'DENY',
      target: 'input',
      case_insensitive: false,
    },
  },
  /** Patterns must be RE2 syntax: compiled once here to refuse what RE2 cannot run (backreferences, lookaround). */
  checkRules(rules) {
    for (const p of rules.patterns) {
      try {
        new RE2(p, 'u');
      } catch (err) {
        throw new GatewayError('invalid_request', `rules.patterns: "${p.slice(0, 100)}" is not valid RE2 syntax (${(err as Error).message})`);
      }
    }
  },
  compile(p, parts) {
    const r = p.rules;
    const owner = { id: p.id, risk: p.risk, action: r.action };
    for (const pattern of r.patterns) {
      if (r.target !== 'output') parts.inFilters.push({ pattern, owner, ci: r.case_insensitive });
      if (r.target !== 'input') parts.outFilters.push({ pattern, owner, ci: r.case_insensitive });
    }
  },
};
