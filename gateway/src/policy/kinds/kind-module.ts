import type { CompiledParts } from '../compiled-parts.js';
import type { PolicyRecord, PolicyType, RulesByType } from '../policy-record.js';

/** The policy a starter pack creates for a type (docs/policies.md, "Packs"). */
export interface PackDefaults {
  readonly name: string;
  readonly risk: number;
  readonly rules: Record<string, unknown>;
}

/**
 * One policy type, whole: the JSON Schema of its rules (whose defaults fill every missing field), the policy a pack
 * creates for it, any check the schema cannot express, and what it adds to a tenant's compiled evaluator. Adding a
 * type is adding a file under `types/` and a line in `policy-types.ts`.
 */
export interface PolicyTypeModule<T extends PolicyType> {
  readonly type: T;
  readonly rulesSchema: object;
  /** null: no pack creates this type. */
  readonly pack: PackDefaults | null;
  /** Checks beyond the schema, on rules the schema accepted; throws invalid_request (400). */
  checkRules?(rules: RulesByType[T]): void;
  /** Adds one enabled policy to the evaluator being compiled (at policy-change time, never per request). */
  compile(policy: PolicyRecord<T>, parts: CompiledParts): void;
}
