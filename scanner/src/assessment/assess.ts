import { randomUUID } from 'node:crypto';
import type { Profile } from '../checks/check.js';
import type { JudgingLimits } from '../checks/judging-limits.js';
import { CHECKS } from '../checks/registry.js';
import type { CheckResult } from '../checks/runner.js';
import { judge } from '../judge/judge.js';
import { commerceRisk } from '../profile/commerce-risk.js';
import { commerceSignals } from '../profile/detect-profile.js';
import { SCORING_VERSION } from '../scoring/scoring.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { evidenceList, type EvidenceBounds } from '../evidence/evidence-text.js';
import type { Assessment, CheckReport, CheckReportStatus, CommerceRisk } from './assessment.js';

export interface AssessOptions {
  /** Requested profile; 'auto' (the default) resolves it from the snapshot. */
  readonly profile?: Profile | 'auto';
  readonly requestId: string;
  readonly scanId?: string;
  readonly now?: () => Date;
  /** What judging may cost (element, depth, time, robots caps); the defaults when omitted. */
  readonly limits?: JudgingLimits;
}

export interface AssessOutcome {
  readonly assessment: Assessment;
  /** Every check's result, for callers that show more than findings (logs, the SEO audit, benchmarks). */
  readonly results: readonly CheckResult[];
}

/** Commerce signals quote the page (a cart link): cleaned and cut like every evidence string. */
function boundedRisk(risk: CommerceRisk, bounds: EvidenceBounds): CommerceRisk {
  return { level: risk.level, signals: evidenceList(risk.signals, bounds) };
}

const REPORT_STATUS: Record<CheckResult['status'], CheckReportStatus> = {
  pass: 'pass',
  fail: 'fail',
  info: 'informational',
  not_applicable: 'not_applicable',
  not_measured: 'not_measured',
  error: 'error',
};

/** One check's line in `checks`: the runner already cleaned and cut its evidence and error text. */
function checkReport(r: CheckResult): CheckReport {
  return {
    id: r.check.id,
    dimension: r.check.dimension,
    pillar: r.check.pillar,
    status: REPORT_STATUS[r.status],
    evidence: r.status === 'error' ? `the check failed to run: ${r.error ?? 'unknown error'}` : r.evidence,
    version: r.check.version,
  };
}

/** Judges one snapshot: profile, checks, scores, findings. Pure apart from the id and the clock. */
export function assess(snapshot: Snapshot, options: AssessOptions): AssessOutcome {
  const { profile, detected, results, scores, findings, derived } = judge(snapshot, { checks: CHECKS, profile: options.profile, limits: options.limits });
  const assessment: Assessment = {
    scanId: options.scanId ?? randomUUID(),
    requestId: options.requestId,
    url: snapshot.requestedUrl,
    timestamp: (options.now?.() ?? new Date()).toISOString(),
    globalScore: scores.globalScore,
    grade: scores.grade,
    profile,
    mode: 'static',
    scoringVersion: SCORING_VERSION,
    checksSummary: scores.checksSummary,
    commerceRisk: profile === 'commerce' ? boundedRisk(commerceRisk(results, detected?.signals ?? commerceSignals(snapshot, derived)), derived.limits) : null,
    findings,
    dimensions: scores.dimensions,
    pillars: scores.pillars,
    criticalIssues: findings.filter((f) => f.severity === 'High').map((f) => ({ id: f.id, title: f.title, pillar: f.pillar, severity: f.severity })),
    checks: results.map(checkReport),
  };
  return { assessment, results };
}
