import { globAccessRule, GLOB_LIST_SCHEMA, requireAllowOrDeny } from '../tool-globs.js';
import type { PolicyTypeModule } from './kind-module.js';

export interface ModelAccessRules {
  /** Model-name globs: a model matching none of them triggers. */
  allow?: string[];
  /** Model-name globs: a model matching one of them triggers. */
  deny?: string[];
  action: 'DENY' | 'REQUIRE_APPROVAL';
}

/**
 * Which models an agent may ask for, by the name it wrote (a route's alias before it is resolved): on every proxied
 * call, in every wire format. Judged with the call's input, before anything is sent upstream.
 */
export const modelAccess: PolicyTypeModule<'model_access'> = {
  type: 'model_access',
  rulesSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['action'],
    properties: {
      allow: GLOB_LIST_SCHEMA,
      deny: GLOB_LIST_SCHEMA,
      action: { type: 'string', enum: ['DENY', 'REQUIRE_APPROVAL'] },
    },
  },
  pack: null,
  checkRules(rules) {
    requireAllowOrDeny('model_access', rules);
  },
  compile(p, parts) {
    parts.models.push(globAccessRule(p));
  },
};
