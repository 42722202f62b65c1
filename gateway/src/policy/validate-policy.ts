import { GatewayError } from '../errors.js';
import { assertValid, OwnSchema } from '../platform/gateway-ajv.js';
import { POLICY_TYPES, type PolicyType, type Rules } from './policy-record.js';
import { POLICY_TYPE_TABLE, policyTypeOf } from './kinds/all-kinds.js';
import { SCOPE_SCHEMA, type PolicyScope } from './policy-scope.js';

export interface PolicyCreate {
  name: string;
  type: PolicyType;
  risk: number;
  enabled: boolean;
  rules: Rules;
  scope?: PolicyScope;
}

export interface PolicyPatch {
  name?: string;
  risk?: number;
  enabled?: boolean;
  rules?: Rules;
  type?: PolicyType;
  /** null: the policy applies everywhere again. */
  scope?: PolicyScope | null;
}

const NAME = { type: 'string', minLength: 1, maxLength: 200 };
const RISK = { type: 'number', minimum: 0, maximum: 100 };

const CREATE = new OwnSchema({
  type: 'object',
  additionalProperties: false,
  required: ['name', 'type', 'risk', 'rules'],
  properties: { name: NAME, type: { type: 'string', enum: POLICY_TYPES }, risk: RISK, enabled: { type: 'boolean', default: true }, rules: { type: 'object' }, scope: SCOPE_SCHEMA },
});
const PATCH = new OwnSchema({
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { name: NAME, type: { type: 'string', enum: POLICY_TYPES }, risk: RISK, enabled: { type: 'boolean' }, rules: { type: 'object' }, scope: { ...SCOPE_SCHEMA, type: ['object', 'null'] } },
});
const RULES = Object.fromEntries(POLICY_TYPES.map((t) => [t, new OwnSchema(POLICY_TYPE_TABLE[t].rulesSchema)])) as Record<PolicyType, OwnSchema>;

/**
 * Policy bodies validated by ajv schemas compiled once per process: the envelope here, the rules by each type's
 * schema, then each type's own checks (content-filter patterns must compile in RE2: a 400 names the one that does not).
 */
export class PolicyValidator {
  create(body: unknown): PolicyCreate {
    assertValid(CREATE, body);
    const b = body as PolicyCreate;
    b.rules = this.rules(b.type, b.rules);
    return b;
  }

  patch(body: unknown, currentType: PolicyType): PolicyPatch {
    assertValid(PATCH, body);
    const b = body as PolicyPatch;
    if (b.type !== undefined && b.type !== currentType) throw new GatewayError('invalid_request', 'type: a policy\'s type cannot change; create a new policy');
    if (b.rules !== undefined) b.rules = this.rules(currentType, b.rules);
    return b;
  }

  /** Validates (and fills defaults of) a type's rules, then runs the type's own checks. */
  rules(type: PolicyType, rules: unknown): Rules {
    const copy = structuredClone(rules);
    assertValid(RULES[type], copy, 'rules');
    policyTypeOf(type).checkRules?.(copy as Rules);
    return copy as Rules;
  }
}
