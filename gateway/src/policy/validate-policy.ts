import type { ValidateFunction } from 'ajv';
import RE2 from 're2';
import { GatewayError } from '../errors.js';
import { assertValid, createAjv } from '../validation/gateway-ajv.js';
import { POLICY_TYPES, type PolicyType, type Rules } from './types.js';
import { RULES_SCHEMAS } from './rules-schemas.js';

export interface PolicyCreate {
  name: string;
  type: PolicyType;
  risk: number;
  enabled: boolean;
  rules: Rules;
}

export interface PolicyPatch {
  name?: string;
  risk?: number;
  enabled?: boolean;
  rules?: Rules;
  type?: PolicyType;
}

const NAME = { type: 'string', minLength: 1, maxLength: 200 };
const RISK = { type: 'number', minimum: 0, maximum: 100 };

/**
 * Policy bodies validated by ajv schemas compiled once, at start. Content-filter patterns must be RE2 syntax: they are
 * compiled here once to reject what RE2 cannot run (backreferences, lookaround) with a 400 naming the pattern.
 */
export class PolicyValidator {
  readonly #ajv = createAjv('own');
  readonly #create: ValidateFunction;
  readonly #patch: ValidateFunction;
  readonly #rules: Record<PolicyType, ValidateFunction>;

  constructor() {
    this.#create = this.#ajv.compile({
      type: 'object',
      additionalProperties: false,
      required: ['name', 'type', 'risk', 'rules'],
      properties: { name: NAME, type: { type: 'string', enum: POLICY_TYPES }, risk: RISK, enabled: { type: 'boolean', default: true }, rules: { type: 'object' } },
    });
    this.#patch = this.#ajv.compile({
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: { name: NAME, type: { type: 'string', enum: POLICY_TYPES }, risk: RISK, enabled: { type: 'boolean' }, rules: { type: 'object' } },
    });
    this.#rules = Object.fromEntries(POLICY_TYPES.map((t) => [t, this.#ajv.compile(RULES_SCHEMAS[t])])) as Record<PolicyType, ValidateFunction>;
  }

  create(body: unknown): PolicyCreate {
    assertValid(this.#create, body);
    const b = body as PolicyCreate;
    b.rules = this.rules(b.type, b.rules);
    return b;
  }

  patch(body: unknown, currentType: PolicyType): PolicyPatch {
    assertValid(this.#patch, body);
    const b = body as PolicyPatch;
    if (b.type !== undefined && b.type !== currentType) throw new GatewayError('invalid_request', 'type: a policy\'s type cannot change; create a new policy');
    if (b.rules !== undefined) b.rules = this.rules(currentType, b.rules);
    return b;
  }

  /** Validates (and fills defaults of) a type's rules; checks content-filter patterns compile in RE2. */
  rules(type: PolicyType, rules: unknown): Rules {
    const copy = structuredClone(rules);
    assertValid(this.#rules[type], copy, 'rules');
    if (type === 'content_filter') {
      for (const p of (copy as { patterns: string[] }).patterns) {
        try {
          new RE2(p, 'u');
        } catch (err) {
          throw new GatewayError('invalid_request', `rules.patterns: "${p.slice(0, 100)}" is not valid RE2 syntax (${(err as Error).message})`);
        }
      }
    }
    return copy as Rules;
  }
}
