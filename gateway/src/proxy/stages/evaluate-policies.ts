import { newId } from '@aduana/shared';
import { GatewayError } from '../../errors.js';
import type { TenantRuntimes } from '../../runtime/tenant-runtime.js';
import type { AgentBudgetLookup } from '../../decisions/decision-engine.js';
import type { RequestStage } from './stage.js';

/**
 * The same compiled evaluator as /v1/decide, over the request's text. Anything but ALLOW is answered here with 403
 * (a proxied call cannot wait for a human: held verdicts block, and the decision stays resolvable).
 */
export function evaluatePoliciesStage(runtimes: TenantRuntimes, agentBudget: AgentBudgetLookup): RequestStage {
  return {
    name: 'policy',
    run(c) {
      const p = c.principal!;
      const set = c.policySet!;
      const ev = runtimes.judge(set, {
          tenantId: p.tenantId,
          agentId: c.http.agentId,
          sessionId: c.sessionId,
          riskBudget: null,
          agentRiskBudget: agentBudget(p.tenantId, c.http.agentId),
          text: c.inputText,
          now: Date.now(),
      });
      // Assigned once there is a verdict: a request refused before one (text too long) is a 4xx, not a decision.
      c.decisionId = newId('dec');
      c.evaluation = ev;
      c.verdict = ev.verdict;
      c.rule = ev.rule;
      c.riskScore = ev.riskScore;
      if (ev.verdict !== 'ALLOW') {
        c.outcome = 'blocked';
        const why = ev.triggered.find((t) => t.policyId === ev.rule)?.reason ?? 'policy violation';
        const held = ev.verdict === 'DENY' ? '' : ` (${ev.verdict}: decision ${c.decisionId} awaits review)`;
        throw new GatewayError('policy_violation', `request blocked by policy: ${why}${held}`, ev.rule);
      }
    },
  };
}
