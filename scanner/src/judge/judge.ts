import type { Finding } from '../assessment/assessment.js';
import type { Check, Profile } from '../checks/check.js';
import { Derived } from '../checks/derived.js';
import { judgingDeadline, type JudgingLimits } from '../checks/judging-limits.js';
import { runChecks, type CheckResult } from '../checks/runner.js';
import { detectProfile, type ProfileEvidence } from '../profile/detect-profile.js';
import { score, type Scores } from '../scoring/scoring.js';
import type { Snapshot } from '../snapshot/snapshot.js';

export interface JudgeOptions {
  /** The checks to run, in report order. */
  readonly checks: readonly Check[];
  /** Requested profile; 'auto' (the default) resolves it from the snapshot. */
  readonly profile?: Profile | 'auto';
  /** What judging may cost (element, depth, time, robots caps); the defaults when omitted. */
  readonly limits?: JudgingLimits;
}

export interface Judgement {
  readonly profile: Profile;
  /** Why the profile was resolved so; undefined when the caller named it. */
  readonly detected: ProfileEvidence | undefined;
  readonly results: readonly CheckResult[];
  readonly scores: Scores;
  /** Every result's finding, most urgent first (a stable sort: report order within a priority). */
  readonly findings: readonly Finding[];
  /** The page parsed once, within the limits: what callers read after the checks (signals, evidence bounds). */
  readonly derived: Derived;
}

/**
 * Judges one snapshot, the one way every report does: the page parsed once within the judging limits, the profile
 * resolved, the checks run within the judging budget, the results scored. The budget covers the whole step, parse
 * (inside profile detection) included. Pure apart from the clock.
 */
export function judge(snapshot: Snapshot, options: JudgeOptions): Judgement {
  const derived = new Derived(options.limits);
  const deadline = judgingDeadline(derived.limits);
  const detected = options.profile === undefined || options.profile === 'auto' ? detectProfile(snapshot, derived) : undefined;
  const profile = detected?.profile ?? (options.profile as Profile);
  const results = runChecks(options.checks, snapshot, profile, derived, deadline);
  const scores = score(
    results.map((r) => ({ id: r.check.id, pillar: r.check.pillar, dimension: r.check.dimension, weight: r.check.weight, score: r.score, passed: r.status === 'pass' })),
    profile,
  );
  const findings = results.flatMap((r) => (r.finding ? [r.finding] : [])).sort((a, b) => a.priority - b.priority);
  return { profile, detected, results, scores, findings, derived };
}
