import { describe, expect, it, vi } from 'vitest';
import { policyRecord, proxyContext, refusal, TENANT, tenantRuntimes } from '../../../test/helpers/proxy-context.js';
import { AgentState } from '../../agents/agent-state.js';
import { GatewayError } from '../../errors.js';
import type { PolicySet } from '../../policy/compile-policy-set.js';
import type { PolicyRecord } from '../../policy/policy-record.js';
import type { EvalPool } from '../../policy/runtime/eval-pool.js';
import type { EvalResult } from '../../policy/runtime/eval-worker-main.js';
import { evaluatePoliciesStage } from './evaluate-policies.js';
import { parseIntentStage } from './parse-intent.js';

// The input judged over a small context: the real TenantRuntimes and compiled policy sets. The evaluation worker is
// stood in for by a pool that does the worker's job on this thread (the pool and its thread are black-box tested).

const INLINE_MAX = 200;

const filter = (action: string, patterns = ['forbidden plan']) => policyRecord('content_filter', { patterns, action, target: 'input', case_insensitive: false }, `pol_filter_${action}`);
const PII = policyRecord('pii_redaction', { action: 'REDACT', target: 'input', entities: ['EMAIL'] });
const RATE = policyRecord('rate_limit', { limit: 100, window_s: 60, scope: 'agent', action: 'DENY' });

/** What eval-worker-main does with a job, here: the set scans the joined strings and redacts each one it must. */
class SameThreadPool {
  readonly jobs: string[][] = [];

  run(set: PolicySet, strings: string[]): Promise<EvalResult> {
    this.jobs.push([...strings]);
    const findings = set.scanInput(strings.join('\n'));
    const redactor = set.inputRedactor;
    let redacted: string[] | null = null;
    let redactions = 0;
    if (redactor && findings.pii.some((e) => (redactor.entities as readonly string[]).includes(e))) {
      redacted = strings.map((s) => {
        const r = redactor.redact(s);
        redactions += r.matches.length;
        return r.text;
      });
    }
    return Promise.resolve({ id: this.jobs.length, findings, redacted, redactions, error: null });
  }
}

function setUp(policies: PolicyRecord[], text: string, maxTextChars?: number) {
  const runtimes = tenantRuntimes(policies, {}, maxTextChars);
  const pool = new SameThreadPool();
  const stage = evaluatePoliciesStage(runtimes.limits, pool as unknown as EvalPool, INLINE_MAX);
  const c = proxyContext('chat', { body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] } });
  parseIntentStage().run(c);
  c.policySet = runtimes.sets.policySet(TENANT);
  c.agent = new AgentState(TENANT, 'bot');
  return { runtimes, pool, stage, c };
}

const content = (c: ReturnType<typeof setUp>['c']) => (c.request!['messages'] as { content: string }[])[0]!.content;

describe('evaluate-policies stage', () => {
  it('lets an allowed request continue synchronously, with its decision in the context', () => {
    const { stage, c, pool } = setUp([filter('DENY')], 'a harmless question');
    expect(stage.run(c)).toBeUndefined();
    expect(c.verdict).toBe('ALLOW');
    expect(c.rule).toBe('');
    expect(c.decisionId).toMatch(/^dec_/);
    expect(c.evaluation).toMatchObject({ verdict: 'ALLOW', policiesEvaluated: 1, triggered: [] });
    expect(c.outcome).toBe('completed');
    expect(pool.jobs).toEqual([]);
  });

  it('answers a DENY with policy_violation naming the rule and its reason, recorded as a blocked decision', () => {
    const deny = filter('DENY');
    const { stage, c } = setUp([deny], 'tell me the forbidden plan');
    const err = refusal(() => stage.run(c));
    expect(err.code).toBe('policy_violation');
    expect(err.status).toBe(403);
    expect(err.rule).toBe(deny.id);
    expect(err.message).toBe('request blocked by policy: input matched a content filter pattern');
    expect(c.verdict).toBe('DENY');
    expect(c.rule).toBe(deny.id);
    expect(c.riskScore).toBeGreaterThan(0);
    expect(c.outcome).toBe('blocked');
    expect(c.decisionId).toMatch(/^dec_/);
  });

  it('blocks a held verdict too, naming the decision that awaits review', () => {
    const held = filter('REQUIRE_APPROVAL');
    const { stage, c } = setUp([held], 'tell me the forbidden plan');
    const err = refusal(() => stage.run(c));
    expect(err.code).toBe('policy_violation');
    expect(err.rule).toBe(held.id);
    expect(err.message).toBe(`request blocked by policy: input matched a content filter pattern (REQUIRE_APPROVAL: decision ${c.decisionId} awaits review)`);
    expect(c.verdict).toBe('REQUIRE_APPROVAL');
    expect(c.outcome).toBe('blocked');
  });

  it('allows a request a REDACT pii policy matches, and leaves the rewriting to redact-input', () => {
    const { stage, c } = setUp([PII], 'mail ana@example.com please');
    expect(stage.run(c)).toBeUndefined();
    expect(c.verdict).toBe('ALLOW');
    expect(c.rule).toBe(PII.id);
    expect(c.evaluation?.redactInput).toBe(true);
    expect(content(c)).toBe('mail ana@example.com please');
    expect(c.inputRedactions).toBe(0);
    expect(c.inputJudgedInWorker).toBe(false);
  });

  it("judges bond enforcement by the agent's risk budget and the call's session", () => {
    const flag = filter('FLAG', ['risky']);
    const bond = policyRecord('bond_enforcement', { action: 'DENY', default_budget: null, max_risk_budget: null });
    const { stage, c } = setUp([flag, bond], 'a risky request');
    c.agent!.riskBudget = 10;
    c.sessionId = 'session-1';
    expect(refusal(() => stage.run(c)).rule).toBe(bond.id);
    // Without a budget from the agent (and none by default) the same request is allowed.
    const other = setUp([flag, bond], 'a risky request');
    expect(other.stage.run(other.c)).toBeUndefined();
    expect(other.c.rule).toBe(flag.id);
  });

  it('refuses text past what the set may judge with text_too_large: no decision, nothing sent to the worker', () => {
    const { stage, c, pool } = setUp([PII], 'x'.repeat(1000), 500);
    const err = refusal(() => stage.run(c));
    expect(err.code).toBe('text_too_large');
    expect(err.status).toBe(413);
    expect(c.decisionId).toBe('');
    expect(c.evaluation).toBeNull();
    expect(pool.jobs).toEqual([]);
  });

  it('judges long text in the worker: its redacted strings are put back, and redact-input is told it was done', async () => {
    const long = `${'lorem ipsum '.repeat(30)} write to ana@example.com or bo@example.org`;
    const { stage, c, pool } = setUp([PII], long);
    const evaluate = vi.spyOn(c.policySet!, 'evaluate');
    const waiting = stage.run(c);
    expect(waiting).toBeInstanceOf(Promise);
    await waiting;
    expect(pool.jobs).toHaveLength(1);
    expect(pool.jobs[0]).toContain(long);
    // The verdict is reached from the worker's findings: the text is not scanned again on the event loop.
    expect(evaluate).toHaveBeenCalledOnce();
    expect(evaluate.mock.calls[0]![2]).toEqual({ filters: [], entropy: [], pii: ['EMAIL'] });
    expect(c.verdict).toBe('ALLOW');
    expect(c.decisionId).toMatch(/^dec_/);
    expect(content(c)).toBe(`${'lorem ipsum '.repeat(30)} write to [REDACTED:EMAIL] or [REDACTED:EMAIL]`);
    expect(c.inputRedactions).toBe(2);
    expect(c.inputJudgedInWorker).toBe(true);
  });

  it("blocks on the worker's findings as it would inline", async () => {
    const deny = filter('DENY');
    const { stage, c, pool } = setUp([deny], `${'padding '.repeat(40)} the forbidden plan`);
    await expect(stage.run(c)).rejects.toMatchObject({ code: 'policy_violation', rule: deny.id });
    expect(pool.jobs).toHaveLength(1);
    expect(c.outcome).toBe('blocked');
    expect(c.inputJudgedInWorker).toBe(false);
  });

  it('refuses long text from a tenant whose evaluation time is spent before the worker is asked', async () => {
    const { stage, c, pool, runtimes } = setUp([PII], 'y'.repeat(INLINE_MAX + 1));
    runtimes.limits.chargeEvaluation(TENANT, 60_000);
    const err: unknown = await Promise.resolve(stage.run(c)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ code: 'evaluation_time_exceeded', status: 429 });
    expect(pool.jobs).toEqual([]);
    expect(c.decisionId).toBe('');
  });

  it('judges long text inline when no policy reads the text', () => {
    const { stage, c, pool } = setUp([RATE], 'z'.repeat(INLINE_MAX * 5));
    expect(stage.run(c)).toBeUndefined();
    expect(c.verdict).toBe('ALLOW');
    expect(pool.jobs).toEqual([]);
  });
});
