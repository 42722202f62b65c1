import { describe, expect, it } from 'vitest';
import { policyRecord, TENANT } from '../../test/helpers/proxy-context.js';
import { compilePolicySet } from './compile-policy-set.js';
import type { EvaluationInput } from './evaluation.js';
import type { PolicyRecord } from './policy-record.js';
import type { PolicyScope } from './policy-scope.js';
import { TenantState } from './tenant-state.js';

// A policy's scope as the compiled set applies it: which policies judge an action, chosen by `narrow`.

const scoped = (p: PolicyRecord, scope: PolicyScope): PolicyRecord => ({ ...p, scope });
const pii = (id: string, scope?: PolicyScope) => {
  const p = policyRecord('pii_redaction', { entities: ['EMAIL'], action: 'REDACT', target: 'both' }, id);
  return scope ? scoped(p, scope) : p;
};
const filter = (id: string, pattern: string, scope?: PolicyScope) => {
  const p = policyRecord('content_filter', { patterns: [pattern], action: 'DENY', target: 'both', case_insensitive: false }, id);
  return scope ? scoped(p, scope) : p;
};
const input = (text: string, extra: Partial<EvaluationInput> = {}): EvaluationInput => ({ tenantId: TENANT, agentId: 'bot-a', sessionId: '', riskBudget: null, agentRiskBudget: null, text, now: 1_000_000, ...extra });
const state = () => new TenantState(TENANT);

describe('a compiled set with scoped policies', () => {
  it('no policy aimed: narrow is the set itself, whatever the action', () => {
    const s = compilePolicySet(TENANT, 1, [pii('p'), filter('f', 'secret', { direction: 'input' })]);
    expect(s.aimed).toBe(false);
    expect(s.narrow('proxy', 'bot-a', 'gpt-4o')).toBe(s);
    expect(s.narrow('mcp', 'bot-b', undefined, 'crm', 'lookup')).toBe(s);
  });

  it('a policy applies only where every field of its scope matches; what the action lacks matches nothing', () => {
    const s = compilePolicySet(TENANT, 1, [filter('any', 'alpha'), filter('proxy-only', 'beta', { doors: ['proxy'] }), filter('bots', 'gamma', { agents: ['bot-*'], models: ['gpt-4o*'] }), filter('crm', 'delta', { servers: ['crm'], tools: ['lookup_*'] })]);
    expect(s.aimed).toBe(true);
    const ids = (set: typeof s) => set.evaluate(input('alpha beta gamma delta'), state()).triggered.map((t) => t.policyId).sort();
    expect(ids(s.narrow('proxy', 'bot-a', 'gpt-4o-mini'))).toEqual(['any', 'bots', 'proxy-only']);
    expect(ids(s.narrow('proxy', 'Bot-A', 'GPT-4o'))).toEqual(['any', 'bots', 'proxy-only']);
    expect(ids(s.narrow('proxy', 'human', 'gpt-4o-mini'))).toEqual(['any', 'proxy-only']);
    // /v1/decide asks for no model: a scope by model does not match it.
    expect(ids(s.narrow('decide', 'bot-a', undefined, undefined, 'lookup_customer'))).toEqual(['any']);
    expect(ids(s.narrow('mcp', 'bot-a', undefined, 'crm', 'lookup_customer'))).toEqual(['any', 'crm']);
    expect(ids(s.narrow('mcp', 'bot-a', undefined, 'crm', 'send_email'))).toEqual(['any']);
    expect(ids(s.narrow('mcp', 'bot-a', undefined, 'crm'))).toEqual(['any']);
    // Narrowed sets are kept: the same combination is the same set; it counts the policies that judge.
    expect(s.narrow('proxy', 'bot-a', 'gpt-4o')).toBe(s.narrow('proxy', 'bot-b', 'gpt-4o-mini'));
    expect(s.narrow('proxy', 'bot-a', 'gpt-4o').evaluate(input(''), state()).policiesEvaluated).toBe(3);
    // Every aimed policy matching: the tenant's set itself.
    const one = compilePolicySet(TENANT, 1, [filter('any', 'alpha'), filter('proxy-only', 'beta', { doors: ['proxy'] })]);
    expect(one.narrow('proxy', 'bot-a', 'gpt-4o')).toBe(one);
  });

  it("Azure's deployment is a model name a scope by model matches", () => {
    const s = compilePolicySet(TENANT, 1, [filter('prod', 'x', { models: ['prod-*'] })]);
    expect(s.narrow('proxy', 'a', 'gpt-4o', undefined, undefined, 'prod-eu').evaluate(input('x'), state()).verdict).toBe('DENY');
    expect(s.narrow('proxy', 'a', 'gpt-4o', undefined, undefined, 'dev').evaluate(input('x'), state()).verdict).toBe('ALLOW');
  });

  it("redaction follows the scope: a narrowed set redacts only what its own pii policies redact", () => {
    const s = compilePolicySet(TENANT, 1, [pii('proxy-pii', { doors: ['proxy'] })]);
    const proxy = s.narrow('proxy', 'a', 'gpt-4o');
    const mcp = s.narrow('mcp', 'a', undefined, 'crm', 'lookup_customer');
    expect(proxy.inputRedactor?.redact('ana@example.com').text).toBe('[REDACTED:EMAIL]');
    expect(proxy.evaluate(input('ana@example.com'), state()).redactInput).toBe(true);
    expect(mcp.inputRedactor).toBeNull();
    expect(mcp.outputRedactor).toBeNull();
    expect(mcp.evaluate(input('ana@example.com'), state())).toMatchObject({ verdict: 'ALLOW', redactInput: false, triggered: [] });
  });

  it('direction splits a policy: input judges requests only, output answers only', () => {
    const s = compilePolicySet(TENANT, 1, [filter('in', 'alpha', { direction: 'input' }), filter('out', 'beta', { direction: 'output' }), pii('pii-out', { direction: 'output' })]);
    expect(s.evaluate(input('alpha beta'), state()).triggered.map((t) => t.policyId)).toEqual(['in']);
    expect(s.evaluateOutput('alpha beta').triggered.map((t) => t.policyId)).toEqual(['out']);
    expect(s.inputRedactor).toBeNull();
    expect(s.outputRedactor).not.toBeNull();
    const tools = compilePolicySet(TENANT, 1, [scoped(policyRecord('tool_access', { deny: ['drop_*'], action: 'DENY' }, 'calls'), { direction: 'input' })]);
    // Called, it is refused; listed or named in an answer (the output), it is not judged.
    expect(tools.evaluate(input('', { tool: { name: 'drop_table', server: 'crm' } }), state()).verdict).toBe('DENY');
    expect(tools.toolVerdict('drop_table', 'crm')).toBeNull();
    expect(tools.hasToolAccess).toBe(false);
  });

  it("a narrowed set's rate windows and shields are its own, renumbered", () => {
    const rate = (id: string, scope?: PolicyScope) => {
      const p = policyRecord('rate_limit', { limit: 1, window_s: 60, scope: 'agent', action: 'DENY' }, id);
      return scope ? scoped(p, scope) : p;
    };
    const s = compilePolicySet(TENANT, 1, [rate('mcp-rate', { doors: ['mcp'] }), rate('all-rate')]);
    const proxy = s.narrow('proxy', 'a', 'm');
    expect(proxy.rateWindows.map((w) => w.policyId)).toEqual(['all-rate']);
    const st = state();
    expect(proxy.evaluate(input('x', { agentId: 'a' }), st, undefined, [5]).triggered.map((t) => t.policyId)).toEqual(['all-rate']);
    expect(s.narrow('mcp', 'a', undefined, 'crm').rateWindows.map((w) => w.policyId)).toEqual(['mcp-rate', 'all-rate']);
  });

  it('withMask gives the set a mask names (what a worker thread judges with)', () => {
    const s = compilePolicySet(TENANT, 1, [filter('a', 'x', { agents: ['a'] }), filter('b', 'y', { agents: ['b'] })]);
    const n = s.narrow('proxy', 'a', 'm');
    expect(n.scopeMask).toBe('10');
    const again = compilePolicySet(TENANT, 1, s.records).withMask(n.scopeMask);
    expect(again.evaluate(input('x y'), state()).triggered.map((t) => t.policyId)).toEqual(['a']);
    expect(() => s.withMask('1')).toThrow();
  });
});
