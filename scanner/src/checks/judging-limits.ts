import { performance } from 'node:perf_hooks';
import type { EvidenceBounds } from '../evidence/evidence-text.js';

/**
 * What judging one snapshot may cost (docs/scanner.md, "Bounds"). A page or robots.txt is text the target controls:
 * these caps keep one assessment from holding the event loop, whatever the target serves.
 */
export interface JudgingLimits extends EvidenceBounds {
  /** Elements parsed from one page; past it the page's markup is not judged. */
  readonly maxElements: number;
  /** Element nesting depth; past it the page's markup is not judged. */
  readonly maxDepth: number;
  /** Time for the whole judging step; checks not started by then are reported as not measured. */
  readonly budgetMs: number;
  /** Allow/Disallow rules kept from one robots.txt; later ones are ignored. */
  readonly robotsMaxRules: number;
  /** Longest Allow/Disallow path kept; longer rules are reported as invalid lines. */
  readonly robotsMaxRuleLength: number;
}

/** Browsers cap the tree depth too (Blink at 512); 100,000 elements is several times a large real page. */
export const DEFAULT_JUDGING_LIMITS: JudgingLimits = Object.freeze({
  maxElements: 100_000,
  maxDepth: 512,
  budgetMs: 5_000,
  robotsMaxRules: 2_000,
  robotsMaxRuleLength: 1_024,
  evidenceMaxChars: 1_000,
  evidenceMaxItems: 50,
});

/** When a judging step that starts now must stop starting checks (performance.now() clock). */
export function judgingDeadline(limits: JudgingLimits): number {
  return performance.now() + limits.budgetMs;
}

/** Something a check needed was over a judging limit: the check is reported as not measured, with this message. */
export class JudgingLimitError extends Error {
  override readonly name = 'JudgingLimitError';
}
