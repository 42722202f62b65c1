import { GatewayError } from '../../errors.js';
import type { Triggered } from '../../policy/evaluation.js';
import { foldOutputVerdict } from '../../governance/output-verdict.js';
import { isBlockingAction } from '../../policy/verdict.js';
import type { ToolCallValidator } from '../output/tool-call-validator.js';
import { unsupportedClaims } from '../output/unsupported-claims.js';
import type { ProxyContext } from '../proxy-context.js';
import type { ResponseStage } from './response-stage.js';

/** A stream's output filters see each new piece of text with this much of what came before (patterns spanning events). */
const FILTER_OVERLAP = 512;

/**
 * Output content filters and the hallucination shield. A whole answer is judged whole; a blocking verdict is a 403.
 * A stream is judged window by window as its text arrives, and cut at the first blocking verdict; the checks that need
 * the whole answer (citations) can only be recorded at its end, since its text has been sent.
 */
export function checkOutputStage(tools: ToolCallValidator): ResponseStage {
  return {
    name: 'check-output',
    onPiece(c, piece) {
      if (piece.whole) {
        const triggered = outputTriggers(c, tools, piece.body);
        applyOutputVerdict(c, triggered);
        if (c.verdict !== 'ALLOW') {
          c.outcome = 'blocked';
          const why = triggered.find((t) => t.policyId === c.rule)?.reason ?? 'policy violation';
          throw new GatewayError('policy_violation', `answer blocked by policy: ${why}`, c.rule);
        }
        return;
      }
      const set = c.policySet;
      if (!piece.text || !set || !set.hasOutputFilters) return;
      const window = c.outputWindow + piece.text;
      c.outputWindow = window.slice(-FILTER_OVERLAP);
      const triggered = set.evaluateOutput(window).triggered;
      if (triggered.length === 0) return;
      applyOutputVerdict(c, triggered);
      if (triggered.some((t) => isBlockingAction(t.action))) {
        c.outcome = 'blocked';
        throw new GatewayError('policy_violation', 'answer blocked by policy', c.rule);
      }
    },
    onStreamEnd(c) {
      applyOutputVerdict(c, outputTriggers(c, null, null).filter((t) => t.type === 'hallucination_shield'));
      return null;
    },
  };
}

function outputTriggers(c: ProxyContext, tools: ToolCallValidator | null, answer: Record<string, unknown> | null): Triggered[] {
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
  const folded = foldOutputVerdict(c.verdict, c.rule, c.evaluation?.triggered ?? [], triggered);
  c.verdict = folded.verdict;
  c.rule = folded.rule;
  c.riskScore = folded.riskScore;
}
