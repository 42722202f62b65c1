import { describe, expect, it } from 'vitest';
import { createAjv } from '../../platform/gateway-ajv.js';
import { CompiledParts } from '../compiled-parts.js';
import { POLICY_TYPE_TABLE, compilePolicy } from './all-kinds.js';
import { POLICY_TYPES, type PolicyRecord, type PolicyType } from '../policy-record.js';

/** Valid rules of the types no pack creates. */
const NO_PACK_RULES: Partial<Record<PolicyType, Record<string, unknown>>> = {
  budget: { max_cost_brl: 1 },
  tool_access: { deny: ['drop_*'], action: 'DENY' },
  model_access: { allow: ['gpt-4o-mini'], action: 'DENY' },
};

describe('policy type table', () => {
  it('has one module per policy type, named as its key', () => {
    expect(Object.keys(POLICY_TYPE_TABLE).sort()).toEqual([...POLICY_TYPES].sort());
    for (const t of POLICY_TYPES) expect(POLICY_TYPE_TABLE[t].type).toBe(t);
  });

  it('every rules schema compiles strictly, and every pack policy is valid under it', () => {
    const ajv = createAjv('own');
    for (const t of POLICY_TYPES) {
      const m = POLICY_TYPE_TABLE[t];
      const validate = ajv.compile(m.rulesSchema);
      if (m.pack) expect(validate(structuredClone(m.pack.rules)), `${t}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('every compile step adds its policy to the compiled parts, and only there', () => {
    const ajv = createAjv('own');
    for (const t of POLICY_TYPES) {
      const m = POLICY_TYPE_TABLE[t];
      const rules = structuredClone(m.pack?.rules ?? NO_PACK_RULES[t]);
      expect(ajv.compile(m.rulesSchema)(rules)).toBe(true);
      const parts = new CompiledParts();
      const policy = { id: `p-${t}`, tenant_id: 't', name: t, type: t, risk: 10, enabled: true, rules, created_at: '', updated_at: '', pack_key: null } as unknown as PolicyRecord;
      compilePolicy(policy, parts);
      const added = [...parts.checks, ...parts.inFilters, ...parts.outFilters, ...parts.piiIn, ...parts.piiOut, ...parts.bonds, ...parts.tools, ...parts.toolsOut, ...parts.models, ...parts.shields];
      expect(added.length, t).toBeGreaterThan(0);
      for (const a of added) expect('owner' in a ? a.owner.id : a.id).toBe(`p-${t}`);
    }
  });
});
