import { performance } from 'node:perf_hooks';
import type { Finding } from '../assessment/assessment.js';
import { SEVERITY_PRIORITY } from '../scoring/scoring.js';
import type { Snapshot, SnapshotPart } from '../snapshot/snapshot.js';
import type { Check, CheckInput, Profile, Verdict } from './check.js';
import { Derived } from './derived.js';
import { evidenceText, type EvidenceBounds } from '../evidence/evidence-text.js';
import { JudgingLimitError } from './judging-limits.js';

export type CheckStatus = 'pass' | 'fail' | 'info' | 'not_applicable' | 'not_measured' | 'error';

export interface CheckResult {
  readonly check: Check;
  readonly status: CheckStatus;
  /** [0, 1] when the result counts toward the scores; null when it does not. */
  readonly score: number | null;
  readonly evidence: string;
  readonly finding?: Finding;
  /** The exception's message, for status 'error'. */
  readonly error?: string;
}

/**
 * A part is missing when the collectors did not gather it, or when its probe got no answer at all (time-out,
 * refused): then nothing can be said about it, and the check is not measured rather than failed.
 */
function available(value: Snapshot[SnapshotPart]): boolean {
  if (value === undefined) return false;
  if ('body' in value && 'status' in value && value.status === null) return false;
  // A TLS probe whose handshake never completed has empty certificate fields: nothing to judge.
  if ('authorized' in value && value.error !== undefined) return false;
  return true;
}

/** Builds the check's input from only the parts it declared. */
function inputFor(check: Check, snapshot: Snapshot, derived: Derived): CheckInput<SnapshotPart> | string {
  const input: Record<string, unknown> = { requestedUrl: snapshot.requestedUrl, derived };
  for (const part of check.needs) {
    const value = snapshot[part];
    if (!available(value)) return part;
    input[part] = value;
  }
  return input as CheckInput<SnapshotPart>;
}

/** Every result leaves the runner through here: its evidence and finding text cleaned and cut (evidence-text.ts). */
function bounded(result: CheckResult, bounds: EvidenceBounds): CheckResult {
  const text = (s: string): string => evidenceText(s, bounds);
  const f = result.finding;
  return {
    ...result,
    evidence: text(result.evidence),
    ...(result.error === undefined ? {} : { error: text(result.error) }),
    ...(f === undefined
      ? {}
      : { finding: { ...f, title: text(f.title), evidence: text(f.evidence), impact: text(f.impact), businessImpact: text(f.businessImpact), recommendation: text(f.recommendation) } }),
  };
}

export function runCheck(check: Check, snapshot: Snapshot, profile: Profile, derived: Derived): CheckResult {
  return bounded(judgeOne(check, snapshot, profile, derived), derived.limits);
}

/** A check not started because the judging step spent its time budget: not measured, and said so. */
function notStarted(check: Check, derived: Derived): CheckResult {
  return { check, status: 'not_measured', score: null, evidence: `not judged: the assessment spent its ${String(derived.limits.budgetMs)} ms judging budget` };
}

function judgeOne(check: Check, snapshot: Snapshot, profile: Profile, derived: Derived): CheckResult {
  const input = inputFor(check, snapshot, derived);
  if (typeof input === 'string') {
    return { check, status: 'not_measured', score: null, evidence: `${input} was not collected` };
  }
  if (check.needsHtml === true && !derived.isHtml(snapshot.page)) {
    return { check, status: 'not_applicable', score: null, evidence: `Not an HTML page (${snapshot.page.contentType || 'no content type'}).` };
  }
  let verdict: Verdict;
  try {
    verdict = check.run(input);
  } catch (err) {
    // Over a judging limit (a page too deep or too large to parse): nothing can be said, which is not a failure.
    if (err instanceof JudgingLimitError) return { check, status: 'not_measured', score: null, evidence: err.message };
    // One broken check never breaks an assessment: it is reported as errored and not scored.
    return { check, status: 'error', score: null, evidence: '', error: err instanceof Error ? err.message : String(err) };
  }
  const needed = check.profiles.includes(profile);
  const finding = (severity: Finding['severity'], issue: Omit<Finding, 'id' | 'pillar' | 'audience' | 'references' | 'priority' | 'severity'>): Finding => ({
    id: check.id,
    pillar: check.pillar,
    title: issue.title,
    evidence: issue.evidence,
    impact: issue.impact,
    businessImpact: issue.businessImpact,
    recommendation: issue.recommendation,
    audience: check.audience,
    severity,
    priority: SEVERITY_PRIORITY[severity],
    effort: issue.effort,
    references: check.references,
  });
  switch (verdict.outcome) {
    case 'pass':
      return { check, status: 'pass', score: needed ? 1 : null, evidence: verdict.evidence };
    case 'not_applicable':
      return { check, status: 'not_applicable', score: null, evidence: verdict.evidence };
    case 'info':
      return { check, status: 'info', score: null, evidence: verdict.issue.evidence, finding: finding('Informational', verdict.issue) };
    case 'fail': {
      // A signal this profile does not need is told, never scored (docs/decisions.md).
      if (!needed) return { check, status: 'info', score: null, evidence: verdict.issue.evidence, finding: finding('Informational', verdict.issue) };
      const partial = Math.min(1, Math.max(0, verdict.issue.score ?? 0));
      return { check, status: 'fail', score: partial, evidence: verdict.issue.evidence, finding: finding(verdict.issue.severity, verdict.issue) };
    }
  }
}

/**
 * Runs every check over one snapshot. Pass the Derived that profile detection already filled, to parse once, and the
 * deadline of the judging step (judgingDeadline): checks not started by then are reported as not measured.
 */
export function runChecks(
  checks: readonly Check[],
  snapshot: Snapshot,
  profile: Profile,
  derived: Derived = new Derived(),
  deadline = Infinity,
): CheckResult[] {
  return checks.map((check) => (performance.now() > deadline ? notStarted(check, derived) : runCheck(check, snapshot, profile, derived)));
}
