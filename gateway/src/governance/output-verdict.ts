import type { Triggered } from '../policy/evaluation.js';
import { combineRisk } from '../policy/risk.js';
import { mostSevere, verdictOf, type Verdict } from '../policy/verdict.js';

/** A call's verdict once what its answer triggered is folded in. */
export interface FoldedVerdict {
  verdict: Verdict;
  rule: string;
  riskScore: number;
}

/**
 * Folds the checks an answer triggered into the call's verdict, the same on every door (the proxy, MCP): the most
 * severe verdict wins (the input's when none is above it; the first of equals), its policy becomes the rule, and the
 * risk is combined over every check that triggered, input and output.
 */
export function foldOutputVerdict(verdict: Verdict, rule: string, inputTriggered: readonly Triggered[], output: readonly Triggered[]): FoldedVerdict {
  const at = mostSevere(output, verdict);
  const t = at >= 0 ? (output[at] as Triggered) : null;
  const risks: number[] = [];
  for (const x of inputTriggered) risks.push(x.risk);
  for (const x of output) risks.push(x.risk);
  return { verdict: t === null ? verdict : verdictOf(t.action), rule: t === null ? rule : t.policyId, riskScore: combineRisk(risks) };
}
