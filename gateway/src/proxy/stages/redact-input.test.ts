import { describe, expect, it, vi } from 'vitest';
import { policyRecord, proxyContext, TENANT, tenantRuntimes } from '../../../test/helpers/proxy-context.js';
import { AgentState } from '../../agents/agent-state.js';
import type { EvalPool } from '../../policy/runtime/eval-pool.js';
import type { PolicyRecord } from '../../policy/policy-record.js';
import { evaluatePoliciesStage } from './evaluate-policies.js';
import { parseIntentStage } from './parse-intent.js';
import { redactInputStage } from './redact-input.js';

// PII rewritten in the request before it is forwarded, over a small context judged by the real evaluator first.

const pii = (target: string) => policyRecord('pii_redaction', { action: 'REDACT', target, entities: ['EMAIL'] });

/** A chat call parsed and judged inline, as the pipeline leaves it for redact-input. */
function judged(policies: PolicyRecord[], body: Record<string, unknown>) {
  const runtimes = tenantRuntimes(policies);
  const c = proxyContext('chat', { body });
  parseIntentStage().run(c);
  c.policySet = runtimes.sets.policySet(TENANT);
  c.agent = new AgentState(TENANT, 'bot');
  evaluatePoliciesStage(runtimes.limits, {} as EvalPool, Number.MAX_SAFE_INTEGER).run(c);
  const charged = vi.spyOn(runtimes.limits, 'chargeEvaluation');
  return { c, stage: redactInputStage(runtimes.limits), charged };
}

const BODY = {
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'reply to ana@example.com' },
    { role: 'user', content: [{ type: 'text', text: 'cc bo@example.org and cy@example.net' }] },
  ],
  tools: [{ type: 'function', function: { name: 'mail', description: 'sends to dee@example.com', parameters: { type: 'object', properties: { 'eve@example.com': { type: 'string' } } } } }],
};

describe('redact-input stage', () => {
  it('rewrites every string of the request that carries an entity, keys included, and counts each one', () => {
    const { c, stage, charged } = judged([pii('input')], structuredClone(BODY));
    expect(stage.run(c)).toBeUndefined();
    const req = c.request as typeof BODY;
    expect(req.messages[0]!.content).toBe('reply to [REDACTED:EMAIL]');
    expect((req.messages[1]!.content as unknown as { text: string }[])[0]!.text).toBe('cc [REDACTED:EMAIL] and [REDACTED:EMAIL]');
    expect(req.tools[0]!.function.description).toBe('sends to [REDACTED:EMAIL]');
    expect(Object.keys(req.tools[0]!.function.parameters.properties)).toEqual(['[REDACTED:EMAIL]']);
    expect(JSON.stringify(req)).not.toContain('@');
    expect(req.model).toBe('gpt-4o-mini');
    expect(c.inputRedactions).toBe(5);
    expect(c.inputRedactionEntities).toEqual({ EMAIL: 5 });
    // Redaction is the tenant's evaluation work: charged to its budget.
    expect(charged).toHaveBeenCalledOnce();
    expect(charged.mock.calls[0]![0]).toBe(TENANT);
  });

  it('leaves the request alone when the judged input had nothing to redact', () => {
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'nothing personal' }] };
    const { c, stage, charged } = judged([pii('input')], structuredClone(body));
    expect(c.evaluation?.redactInput).toBe(false);
    stage.run(c);
    expect(c.request).toEqual(body);
    expect(c.inputRedactions).toBe(0);
    expect(charged).not.toHaveBeenCalled();
  });

  it('leaves the input alone when the pii policy targets only the output', () => {
    const { c, stage } = judged([pii('output')], structuredClone(BODY));
    stage.run(c);
    expect(c.request).toEqual(BODY);
    expect(c.inputRedactions).toBe(0);
  });

  it('does nothing when the evaluation worker already redacted the input', () => {
    const { c, stage, charged } = judged([pii('input')], structuredClone(BODY));
    c.inputJudgedInWorker = true;
    c.inputRedactions = 4;
    stage.run(c);
    expect(c.request).toEqual(BODY);
    expect(c.inputRedactions).toBe(4);
    expect(charged).not.toHaveBeenCalled();
  });
});
