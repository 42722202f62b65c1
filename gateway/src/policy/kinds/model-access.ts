import { GatewayError } from '../../errors.js';
import { compileGlobs, GLOB_LIST_SCHEMA } from '../tool-globs.js';
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
    if (rules.allow === undefined && rules.deny === undefined) {
      throw new GatewayError('invalid_request', 'rules: missing required field "allow" or "deny" (a model_access policy needs at least one)');
    }
  },
  compile(p, parts) {
    const r = p.rules;
    parts.models.push({
      id: p.id,
      risk: p.risk,
      action: r.action,
      allow: r.allow ? compileGlobs(r.allow) : null,
      deny: r.deny ? compileGlobs(r.deny) : null,
    });
  },
};
