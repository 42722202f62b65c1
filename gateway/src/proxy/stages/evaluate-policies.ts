import { performance } from 'node:perf_hooks';
import { newId } from '@aduana/shared';
import { GatewayError } from '../../errors.js';
import type { TenantLimits } from '../../policy/runtime/tenant-limits.js';
import type { EvalPool } from '../../policy/runtime/eval-pool.js';
import type { InputFindings } from '../../policy/compile-policy-set.js';
import type { Evaluation } from '../../policy/evaluation.js';
import { isHeld } from '../../policy/verdict.js';
import { collectRequestStrings, replaceRequestStrings } from '../request-text.js';
import type { ProxyContext } from '../proxy-context.js';
import type { Stage } from './stage.js';

/**
 * The same compiled evaluator as /v1/decide, over the request's text. Anything but ALLOW is answered here with 403
 * (a proxied call cannot wait for a human: held verdicts block, and the decision stays resolvable). Text longer than
 * `inlineMaxChars` is scanned (and redacted) in the evaluation worker, so it cannot hold the event loop; shorter text,
 * the common case, is judged inline with no thread hop.
 */
export function evaluatePoliciesStage(limits: TenantLimits, pool: EvalPool, inlineMaxChars: number): Stage {
  function decide(c: ProxyContext, findings: InputFindings | undefined): void | Promise<void> {
    const p = c.principal!;
    const ev = limits.judge(
      c.policySet!,
      {
        tenantId: p.tenantId,
        agentId: c.http.agentId,
        sessionId: c.sessionId,
        riskBudget: null,
        agentRiskBudget: c.agent!.riskBudget,
        text: c.inputText,
        now: Date.now(),
        // The name the agent wrote, before a route resolves it: what model_access judges (with Azure's deployment).
        model: c.model,
        deployment: c.deployment,
      },
      findings,
    );
    // A promise only when rate_limit windows are counted on Redis (docs/fleet.md, "Shared limits").
    if (ev instanceof Promise) return ev.then((judged) => apply(c, judged));
    apply(c, ev);
  }

  function apply(c: ProxyContext, ev: Evaluation): void {
    // Assigned once there is a verdict: a request refused before one (text too long) is a 4xx, not a decision.
    c.decisionId = newId('dec');
    c.evaluation = ev;
    c.verdict = ev.verdict;
    c.rule = ev.rule;
    c.riskScore = ev.riskScore;
    if (ev.verdict !== 'ALLOW') {
      c.outcome = 'blocked';
      const why = ev.triggered.find((t) => t.policyId === ev.rule)?.reason ?? 'policy violation';
      const held = isHeld(ev.verdict) ? ` (${ev.verdict}: decision ${c.decisionId} awaits review)` : '';
      throw new GatewayError('policy_violation', `request blocked by policy: ${why}${held}`, ev.rule);
    }
  }

  async function inWorker(c: ProxyContext): Promise<void> {
    const set = c.policySet!;
    const tenantId = c.principal!.tenantId;
    limits.admitEvaluation(tenantId);
    const strings = collectRequestStrings(c.request!, c.requestMedia);
    const started = performance.now();
    let result;
    try {
      result = await pool.run(set, strings);
    } finally {
      // Worker time is the tenant's too: its budget bounds how long it may keep the worker busy.
      c.policiesMs = performance.now() - started;
      limits.chargeEvaluation(tenantId, c.policiesMs);
    }
    await decide(c, result.findings ?? undefined);
    if (c.evaluation!.redactInput && result.redacted) {
      replaceRequestStrings(c.request!, result.redacted, c.requestMedia);
      c.inputRedactions = result.redactions;
      c.inputRedactionEntities = result.entities ?? null;
    }
    c.inputJudgedInWorker = true;
  }

  return {
    name: 'evaluate-policies',
    run(c) {
      const set = c.policySet!;
      if (set.readsInputText && c.inputText.length > inlineMaxChars) {
        // Past the cap the evaluator refuses (413) at once: no point sending the text to the worker.
        if (c.inputText.length <= set.maxTextChars) return inWorker(c);
      }
      const started = performance.now();
      let judged: void | Promise<void> = undefined;
      try {
        judged = decide(c, undefined);
      } finally {
        // A judge waiting on Redis (shared limits) is timed to its answer; inline, to its return or its refusal.
        if (judged instanceof Promise) judged = judged.finally(() => void (c.policiesMs = performance.now() - started));
        else c.policiesMs = performance.now() - started;
      }
      return judged;
    },
  };
}
