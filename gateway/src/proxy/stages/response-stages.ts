import { GatewayError } from '../../errors.js';
import { combineRisk } from '../../policy/risk.js';
import { mostSevere, verdictOf } from '../../policy/verdict.js';
import type { Triggered } from '../../policy/evaluation.js';
import type { TenantRuntimes } from '../../runtime/tenant-runtime.js';
import { visitAnswerText } from '../request-text.js';
import type { PriceTable } from '../pricing/price-table.js';
import type { ProxyContext, Usage } from '../proxy-context.js';
import { unsupportedClaims } from '../output/unsupported-claims.js';
import type { ToolCallValidator } from '../output/tool-call-validator.js';
import type { ResponseStage } from './stage.js';

/** Cap on answer text kept for output checks (an answer is relayed whole regardless). */
export const ANSWER_TEXT_CAP = 256 * 1024;

/** Token usage → BRL cost → the agent's budget totals (budget policies read them on the next call). */
export function meterUsageStage(runtimes: TenantRuntimes, prices: PriceTable): ResponseStage {
  return {
    name: 'usage',
    run(c, answer) {
      const u = answer['usage'] as Partial<Usage> | undefined;
      if (u && typeof u === 'object') recordUsage(c, runtimes, prices, u);
    },
  };
}

export function recordUsage(c: ProxyContext, runtimes: TenantRuntimes, prices: PriceTable, u: Partial<Usage>): void {
  const prompt = Number(u.prompt_tokens) || 0;
  const completion = Number(u.completion_tokens) || 0;
  c.usage = { completion_tokens: completion, prompt_tokens: prompt, total_tokens: Number(u.total_tokens) || prompt + completion };
  c.costBrl = prices.cost(c.model, prompt, completion);
  runtimes.addSpend(c.principal!.tenantId, c.http.agentId, c.costBrl, Date.now());
}

/** PII in the answer is rewritten before the client sees it (pii policies targeting output). */
export function redactOutputStage(): ResponseStage {
  return {
    name: 'redact',
    run(c, answer) {
      const redactor = c.policySet!.outputRedactor;
      let count = 0;
      const texts: string[] = [];
      let size = 0;
      visitAnswerText(c.endpoint.kind, answer, (text) => {
        let out = text;
        if (redactor) {
          const r = redactor.redact(text);
          count += r.matches.length;
          out = r.text;
        }
        if (size < ANSWER_TEXT_CAP) {
          texts.push(out);
          size += out.length;
        }
        return out;
      });
      c.outputRedactions = count;
      c.answerText = texts.join('\n');
    },
  };
}

/** Output content filters and the hallucination shield. A blocking verdict on the answer is answered with 403. */
export function checkOutputStage(tools: ToolCallValidator): ResponseStage {
  return {
    name: 'policy',
    run(c, answer) {
      const triggered = outputTriggers(c, tools, answer);
      applyOutputVerdict(c, triggered);
      if (c.verdict !== 'ALLOW') {
        c.outcome = 'blocked';
        const why = triggered.find((t) => t.policyId === c.rule)?.reason ?? 'policy violation';
        throw new GatewayError('policy_violation', `answer blocked by policy: ${why}`, c.rule);
      }
    },
  };
}

export function outputTriggers(c: ProxyContext, tools: ToolCallValidator | null, answer: Record<string, unknown> | null): Triggered[] {
  const set = c.policySet!;
  const triggered: Triggered[] = [...set.evaluateOutput(c.answerText).triggered];
  const shield = set.hallucinationShield;
  if (shield) {
    const problems = unsupportedClaims(c.answerText, c.inputText);
    if (tools && answer && c.request) problems.push(...tools.check(c.request, answer));
    if (problems.length > 0) triggered.push({ policyId: shield.id, type: 'hallucination_shield', action: shield.action, risk: shield.risk, reason: `unsupported in the answer: ${problems.join('; ')}` });
  }
  return triggered;
}

/** Folds output triggers into the call's verdict, rule and risk (most severe wins; risks combine). */
export function applyOutputVerdict(c: ProxyContext, triggered: Triggered[]): void {
  if (triggered.length === 0) return;
  c.outputTriggered = triggered;
  const at = mostSevere(triggered, c.verdict);
  if (at >= 0) {
    const t = triggered[at] as Triggered;
    c.verdict = verdictOf(t.action);
    c.rule = t.policyId;
  }
  c.riskScore = combineRisk([...(c.evaluation?.triggered ?? []), ...triggered].map((t) => t.risk));
}
