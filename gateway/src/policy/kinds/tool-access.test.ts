import { describe, expect, it } from 'vitest';
import { policyRecord, TENANT } from '../../../test/helpers/proxy-context.js';
import { compilePolicySet } from '../compile-policy-set.js';
import type { EvaluationInput } from '../evaluation.js';
import type { PolicyRecord } from '../policy-record.js';
import { TenantState } from '../tenant-state.js';

// tool_access as the MCP gateway, /v1/decide and the proxy's answer check use it: a compiled set, judged by tool name.

function toolPolicy(rules: Record<string, unknown>, id: string, risk = 50): PolicyRecord {
  return { ...policyRecord('tool_access', rules, id), risk };
}

function input(tool?: { name: string; server: string }, text = ''): EvaluationInput {
  return { tenantId: TENANT, agentId: 'bot', sessionId: '', riskBudget: null, agentRiskBudget: null, text, now: 1_000_000, ...(tool ? { tool } : {}) };
}

const set = (...policies: PolicyRecord[]) => compilePolicySet(TENANT, 1, policies);

describe('tool_access: toolVerdict', () => {
  it('deny globs: `*` is any run, `?` one character, everything else literal', () => {
    const s = set(toolPolicy({ deny: ['drop_*', 'crm.delete_?', 'a.b'], action: 'DENY' }, 'deny'));
    expect(s.hasToolAccess).toBe(true);
    for (const name of ['drop_table', 'drop_', 'crm.delete_x', 'crm.delete_é', 'crm.delete_😀', 'a.b']) {
      expect(s.toolVerdict(name, ''), name).toMatchObject({ policyId: 'deny', type: 'tool_access', action: 'DENY', risk: 50 });
    }
    // `.` is a dot, not any character; `?` is exactly one; matches are whole names.
    for (const name of ['read_table', 'xdrop_table', 'crm.delete_', 'crm.delete_xy', 'crmxdelete_x', 'axb', 'a.bc', 'drop']) {
      expect(s.toolVerdict(name, ''), name).toBeNull();
    }
  });

  it('names match after NFKC and case folding: case, full-width and compatibility variants of a name are that name', () => {
    const s = set(toolPolicy({ deny: ['drop_*', 'Straße', 'ＥＸＰＯＲＴ'], action: 'DENY' }, 'fold'));
    for (const name of ['drop_table', 'DROP_TABLE', 'Drop_Table', 'ｄｒｏｐ＿ｔａｂｌｅ', 'ＤＲＯＰ＿ｔａｂｌｅ', 'ᴰROP_x', 'straße', 'STRASSE', 'strasse', 'export', 'Export', 'ｅｘｐｏｒｔ']) {
      expect(s.toolVerdict(name, ''), name).toMatchObject({ policyId: 'fold' });
    }
    // The reason quotes the name as it was sent.
    expect(s.toolVerdict('ＤＲＯＰ＿x', '')?.reason).toContain('"ＤＲＯＰ＿x"');
    for (const name of ['drip_table', 'strase', 'exports']) expect(s.toolVerdict(name, ''), name).toBeNull();
    // Allow globs fold too: a variant of an allowed name is allowed, of no allowed name is not.
    const allow = set(toolPolicy({ allow: ['read_*'], action: 'DENY' }, 'allow'));
    expect(allow.toolVerdict('READ_TABLE', '')).toBeNull();
    expect(allow.toolVerdict('ｒｅａｄ＿x', '')).toBeNull();
    expect(allow.toolVerdict('ＷＲＩＴＥ', '')).not.toBeNull();
    // A glob's own wildcard is `*` and `?` only: a full-width asterisk in a glob is a literal character (its folded `*`).
    const lit = set(toolPolicy({ deny: ['a＊b'], action: 'DENY' }, 'lit'));
    expect(lit.toolVerdict('a*b', '')).not.toBeNull();
    expect(lit.toolVerdict('axxb', '')).toBeNull();
    // /v1/decide and the proxy judge through evaluate: the same folding.
    const state = new TenantState(TENANT);
    expect(s.evaluate(input({ name: 'ＤＲＯＰ＿ＴＡＢＬＥ', server: '' }), state).verdict).toBe('DENY');
  });

  it('glob characters other than * and ? are literal: brackets, braces, !, backslash, regex syntax', () => {
    const s = set(toolPolicy({ deny: ['[ab]', '{x,y}', '!z', 'a\\d', '(q|r)+', '^s$'], action: 'DENY' }, 'lit'));
    for (const name of ['[ab]', '{x,y}', '!z', 'a\\d', '(q|r)+', '^s$']) expect(s.toolVerdict(name, ''), name).not.toBeNull();
    for (const name of ['a', 'b', 'x', 'z', 'a1', 'q', 'qr', 's']) expect(s.toolVerdict(name, ''), name).toBeNull();
  });

  it('allow globs: a tool matching none of them triggers', () => {
    const s = set(toolPolicy({ allow: ['read_*', 'search'], action: 'REQUIRE_APPROVAL' }, 'allow', 30));
    expect(s.toolVerdict('read_table', '')).toBeNull();
    expect(s.toolVerdict('search', '')).toBeNull();
    expect(s.toolVerdict('write_table', '')).toMatchObject({ policyId: 'allow', action: 'REQUIRE_APPROVAL', risk: 30 });
    expect(s.toolVerdict('searches', '')).not.toBeNull();
  });

  it('allow and deny together: denied if it matches deny, or matches no allow', () => {
    const s = set(toolPolicy({ allow: ['crm.*'], deny: ['crm.delete_*'], action: 'DENY' }, 'both'));
    expect(s.toolVerdict('crm.read', '')).toBeNull();
    expect(s.toolVerdict('crm.delete_contact', '')).not.toBeNull();
    expect(s.toolVerdict('files.read', '')).not.toBeNull();
  });

  it('servers: only tools of those MCP servers are judged; a tool of no server is outside', () => {
    const s = set(toolPolicy({ deny: ['*'], servers: ['crm'], action: 'DENY' }, 'crm-only'));
    expect(s.toolVerdict('anything', 'crm')).toMatchObject({ policyId: 'crm-only' });
    expect(s.toolVerdict('anything', 'files')).toBeNull();
    expect(s.toolVerdict('anything', '')).toBeNull();
    // Without servers, every tool is judged, with a server or without.
    const all = set(toolPolicy({ deny: ['x'], action: 'DENY' }, 'any'));
    expect(all.toolVerdict('x', 'crm')).not.toBeNull();
    expect(all.toolVerdict('x', '')).not.toBeNull();
  });

  it('the most severe trigger wins (DENY over REQUIRE_APPROVAL, the first of equals)', () => {
    const s = set(
      toolPolicy({ deny: ['x*'], action: 'REQUIRE_APPROVAL' }, 'held'),
      toolPolicy({ deny: ['xy'], action: 'DENY' }, 'denied'),
      toolPolicy({ deny: ['xy'], action: 'DENY' }, 'denied-too'),
    );
    expect(s.toolVerdict('xz', '')?.policyId).toBe('held');
    expect(s.toolVerdict('xy', '')?.policyId).toBe('denied');
  });

  it('a set without tool_access, or with only disabled ones, says so and allows every tool', () => {
    const filter = policyRecord('content_filter', { patterns: ['drop'], action: 'DENY', target: 'input', case_insensitive: false });
    for (const s of [set(), set(filter), set({ ...toolPolicy({ deny: ['*'], action: 'DENY' }, 'off'), enabled: false })]) {
      expect(s.hasToolAccess).toBe(false);
      expect(s.toolVerdict('drop_table', '')).toBeNull();
    }
  });

  it('a glob that would backtrack exponentially in a backtracking engine is judged at once', () => {
    const s = set(toolPolicy({ deny: [`${'*a'.repeat(40)}b`], action: 'DENY' }, 'slow'));
    expect(s.toolVerdict('a'.repeat(4000), '')).toBeNull();
    expect(s.toolVerdict(`${'a'.repeat(4000)}b`, '')).not.toBeNull();
  });
});

describe('tool_access: evaluate', () => {
  it('judges input.tool in the same evaluation as the text: most severe verdict, risks combined', () => {
    const filter = { ...policyRecord('content_filter', { patterns: ['secret'], action: 'FLAG', target: 'input', case_insensitive: false }, 'flag'), risk: 50 };
    const s = set(filter, toolPolicy({ deny: ['drop_*'], action: 'DENY' }, 'tools', 50));
    const state = new TenantState('t');
    const denied = s.evaluate(input({ name: 'drop_table', server: '' }, 'a secret'), state);
    expect(denied).toMatchObject({ verdict: 'DENY', rule: 'tools', riskScore: 75 });
    expect(denied.triggered.map((t) => [t.policyId, t.type])).toEqual([
      ['flag', 'content_filter'],
      ['tools', 'tool_access'],
    ]);
    expect(s.evaluate(input({ name: 'read_table', server: '' }, 'a secret'), state)).toMatchObject({ verdict: 'ALLOW', rule: 'flag', riskScore: 50 });
    // No tool in the input: tool_access is not asked.
    expect(s.evaluate(input(undefined, 'drop_table'), state)).toMatchObject({ verdict: 'ALLOW', rule: '', riskScore: 0 });
  });

  it('every triggered tool_access policy is recorded; REQUIRE_APPROVAL alone gives that verdict', () => {
    const s = set(toolPolicy({ allow: ['read_*'], action: 'REQUIRE_APPROVAL' }, 'held', 20), toolPolicy({ deny: ['*'], servers: ['crm'], action: 'DENY' }, 'crm', 20));
    const state = new TenantState('t');
    expect(s.evaluate(input({ name: 'write', server: '' }), state)).toMatchObject({ verdict: 'REQUIRE_APPROVAL', rule: 'held', riskScore: 20 });
    const both = s.evaluate(input({ name: 'write', server: 'crm' }), state);
    expect(both).toMatchObject({ verdict: 'DENY', rule: 'crm', riskScore: 36 });
    expect(both.triggered).toHaveLength(2);
  });
});
