import { describe, expect, it } from 'vitest';
import { policyRecord, TENANT } from '../../../test/helpers/proxy-context.js';
import { compilePolicySet } from '../compile-policy-set.js';
import type { EvaluationInput } from '../evaluation.js';
import type { PolicyRecord } from '../policy-record.js';
import { TenantState } from '../tenant-state.js';
import { PolicyValidator } from '../validate-policy.js';
import { GatewayError } from '../../errors.js';

// model_access as the proxy uses it: a compiled set, judged by the model name the agent wrote (and Azure's deployment).

function modelPolicy(rules: Record<string, unknown>, id: string, risk = 50): PolicyRecord {
  return { ...policyRecord('model_access', rules, id), risk };
}

function input(model?: string, deployment?: string, text = ''): EvaluationInput {
  return {
    tenantId: TENANT,
    agentId: 'bot',
    sessionId: '',
    riskBudget: null,
    agentRiskBudget: null,
    text,
    now: 1_000_000,
    ...(model === undefined ? {} : { model }),
    ...(deployment === undefined ? {} : { deployment }),
  };
}

const set = (...policies: PolicyRecord[]) => compilePolicySet(TENANT, 1, policies);
const judge = (s: ReturnType<typeof set>, model?: string, deployment?: string) => s.evaluate(input(model, deployment), new TenantState(TENANT));

describe('model_access: modelVerdict', () => {
  it('deny globs: `*` is any run, `?` one character, everything else literal, whole names only', () => {
    const s = set(modelPolicy({ deny: ['gpt-4o', 'o1-*', 'claude-?-opus', 'org/x.y'], action: 'DENY' }, 'deny'));
    expect(s.hasModelAccess).toBe(true);
    for (const name of ['gpt-4o', 'o1-preview', 'o1-', 'claude-3-opus', 'org/x.y']) {
      expect(s.modelVerdict(name), name).toMatchObject({ policyId: 'deny', type: 'model_access', action: 'DENY', risk: 50 });
    }
    for (const name of ['gpt-4o-mini', 'gpt-4', 'xo1-preview', 'claude-35-opus', 'org/xzy', 'org/x.yz', '']) expect(s.modelVerdict(name), name).toBeNull();
  });

  it('allow globs: a model matching none of them triggers; the empty name matches none', () => {
    const s = set(modelPolicy({ allow: ['gpt-4o-mini', 'claude-*-haiku*'], action: 'REQUIRE_APPROVAL' }, 'allow', 30));
    expect(s.modelVerdict('gpt-4o-mini')).toBeNull();
    expect(s.modelVerdict('claude-3-5-haiku-latest')).toBeNull();
    expect(s.modelVerdict('gpt-4o')).toMatchObject({ policyId: 'allow', action: 'REQUIRE_APPROVAL', risk: 30, reason: 'model "gpt-4o" matches no allowed name' });
    expect(s.modelVerdict('')).not.toBeNull();
  });

  it('deny wins over allow: a model matching both triggers, one matching neither triggers too', () => {
    const s = set(modelPolicy({ allow: ['gpt-*'], deny: ['gpt-4.5*'], action: 'DENY' }, 'both'));
    expect(s.modelVerdict('gpt-4o')).toBeNull();
    expect(s.modelVerdict('gpt-4.5-preview')).toMatchObject({ reason: 'model "gpt-4.5-preview" matches a denied name' });
    expect(s.modelVerdict('claude-sonnet-4')).toMatchObject({ reason: 'model "claude-sonnet-4" matches no allowed name' });
  });

  it('names match after NFKC and case folding: case and full-width variants of a denied model are denied', () => {
    const s = set(modelPolicy({ deny: ['gpt-4o'], action: 'DENY' }, 'fold'));
    for (const name of ['GPT-4o', 'Gpt-4O', 'ｇｐｔ－４ｏ', 'ＧＰＴ-4o']) expect(s.modelVerdict(name), name).toMatchObject({ policyId: 'fold' });
    // The reason quotes the name as it was sent.
    expect(s.modelVerdict('ｇｐｔ－４ｏ')?.reason).toContain('"ｇｐｔ－４ｏ"');
    const allow = set(modelPolicy({ allow: ['GPT-4O-MINI'], action: 'DENY' }, 'allow'));
    expect(allow.modelVerdict('gpt-4o-mini')).toBeNull();
    expect(allow.modelVerdict('ｇｐｔ－４ｏ－ｍｉｎｉ')).toBeNull();
    expect(allow.modelVerdict('ｇｐｔ－４ｏ')).not.toBeNull();
  });

  it('the most severe trigger wins (DENY over REQUIRE_APPROVAL, the first of equals)', () => {
    const s = set(modelPolicy({ deny: ['gpt-*'], action: 'REQUIRE_APPROVAL' }, 'held'), modelPolicy({ deny: ['gpt-4o'], action: 'DENY' }, 'denied'), modelPolicy({ deny: ['gpt-4o'], action: 'DENY' }, 'denied-too'));
    expect(s.modelVerdict('gpt-4.1')?.policyId).toBe('held');
    expect(s.modelVerdict('gpt-4o')?.policyId).toBe('denied');
  });

  it('a set without model_access, or with only disabled ones, says so and allows every model', () => {
    const tools = policyRecord('tool_access', { deny: ['*'], action: 'DENY' });
    for (const s of [set(), set(tools), set({ ...modelPolicy({ deny: ['*'], action: 'DENY' }, 'off'), enabled: false })]) {
      expect(s.hasModelAccess).toBe(false);
      expect(s.modelVerdict('gpt-4o')).toBeNull();
      expect(judge(s, 'gpt-4o').triggered.filter((t) => t.type === 'model_access')).toEqual([]);
    }
  });

  it('a glob that would backtrack exponentially in a backtracking engine is judged at once', () => {
    const s = set(modelPolicy({ deny: [`${'*a'.repeat(40)}b`], action: 'DENY' }, 'slow'));
    expect(s.modelVerdict('a'.repeat(4000))).toBeNull();
    expect(s.modelVerdict(`${'a'.repeat(4000)}b`)).not.toBeNull();
  });
});

describe('model_access: evaluate', () => {
  it('judges input.model with the rest of the input: most severe verdict, risks combined; no model, no judgement', () => {
    const filter = { ...policyRecord('content_filter', { patterns: ['secret'], action: 'FLAG', target: 'input', case_insensitive: false }, 'flag'), risk: 50 };
    const s = set(filter, modelPolicy({ allow: ['gpt-4o-mini'], action: 'DENY' }, 'models', 50));
    const state = new TenantState(TENANT);
    const denied = s.evaluate(input('gpt-4o', undefined, 'a secret'), state);
    expect(denied).toMatchObject({ verdict: 'DENY', rule: 'models', riskScore: 75 });
    expect(denied.triggered.map((t) => [t.policyId, t.type])).toEqual([
      ['flag', 'content_filter'],
      ['models', 'model_access'],
    ]);
    expect(s.evaluate(input('gpt-4o-mini', undefined, 'a secret'), state)).toMatchObject({ verdict: 'ALLOW', rule: 'flag', riskScore: 50 });
    // An input that names no model (/v1/decide, events, MCP) is outside the policy, allow list or not.
    expect(s.evaluate(input(undefined, undefined, 'gpt-4o'), state)).toMatchObject({ verdict: 'ALLOW', rule: '', riskScore: 0 });
    // The empty name is a name, and no allow list matches it.
    expect(judge(s, '')).toMatchObject({ verdict: 'DENY', rule: 'models' });
  });

  it("Azure: a deployment other than the body's model is judged too; either name trips the policy, once", () => {
    const s = set(modelPolicy({ allow: ['gpt-4o-mini', 'mini-prod'], action: 'DENY' }, 'azure'), modelPolicy({ deny: ['big-*'], action: 'REQUIRE_APPROVAL' }, 'big', 20));
    expect(judge(s, 'gpt-4o-mini', 'mini-prod')).toMatchObject({ verdict: 'ALLOW', triggered: [] });
    // An allowed model in the body does not let through a deployment the policy does not allow (Azure serves that).
    const byDeployment = judge(s, 'gpt-4o-mini', 'big-prod');
    expect(byDeployment).toMatchObject({ verdict: 'DENY', rule: 'azure' });
    expect(byDeployment.triggered.map((t) => [t.policyId, t.reason])).toEqual([
      ['azure', 'model "big-prod" matches no allowed name'],
      ['big', 'model "big-prod" matches a denied name'],
    ]);
    // An allowed deployment does not let through a body model that picks a route to another model.
    expect(judge(s, 'gpt-4o', 'mini-prod')).toMatchObject({ verdict: 'DENY', rule: 'azure' });
    // The same name in both (the body named none) is judged once; '' is no deployment.
    expect(judge(s, 'big-prod', 'big-prod').triggered).toHaveLength(2);
    expect(judge(s, 'gpt-4o-mini', '')).toMatchObject({ verdict: 'ALLOW' });
  });
});

describe('model_access: rules', () => {
  const validator = new PolicyValidator();
  const refused = (rules: unknown): string => {
    try {
      validator.rules('model_access', rules);
    } catch (err) {
      expect(err).toBeInstanceOf(GatewayError);
      expect((err as GatewayError).code).toBe('invalid_request');
      return (err as GatewayError).message;
    }
    throw new Error(`accepted: ${JSON.stringify(rules)}`);
  };

  it('refuses rules with neither list, empty lists, empty or long globs, too many, unknown fields and other actions', () => {
    expect(refused({ action: 'DENY' })).toMatch(/rules: .*"allow" or "deny"/);
    expect(refused({ deny: ['x'] })).toMatch(/rules: missing required field "action"/);
    expect(refused({ deny: ['x'], action: 'FLAG' })).toMatch(/rules\.action: must be one of DENY, REQUIRE_APPROVAL/);
    expect(refused({ allow: [], action: 'DENY' })).toMatch(/rules\.allow:/);
    expect(refused({ deny: [''], action: 'DENY' })).toMatch(/rules\.deny\.0:/);
    expect(refused({ deny: ['x'.repeat(201)], action: 'DENY' })).toMatch(/rules\.deny\.0:/);
    expect(refused({ allow: Array.from({ length: 101 }, (_, i) => `m${i}`), action: 'DENY' })).toMatch(/rules\.allow:/);
    expect(refused({ deny: [5], action: 'DENY' })).toMatch(/rules\.deny\.0:/);
    expect(refused({ deny: ['x'], servers: ['crm'], action: 'DENY' })).toMatch(/rules: unknown field "servers"/);
  });

  it('accepts either list or both', () => {
    expect(validator.rules('model_access', { allow: ['gpt-4o-mini'], action: 'DENY' })).toEqual({ allow: ['gpt-4o-mini'], action: 'DENY' });
    expect(validator.rules('model_access', { allow: ['*'], deny: ['o1*'], action: 'REQUIRE_APPROVAL' })).toEqual({ allow: ['*'], deny: ['o1*'], action: 'REQUIRE_APPROVAL' });
  });
});
