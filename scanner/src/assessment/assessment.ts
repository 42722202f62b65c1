import type { Audience, Dimension, Effort, Pillar, Profile, Reference, Severity } from '../checks/check.js';
import type { Grade } from '../scoring/scoring.js';

/** The records of the API's resources, as this service returns them (docs/scanner.md). */

export interface Finding {
  readonly id: string;
  readonly pillar: Pillar;
  readonly title: string;
  readonly evidence: string;
  readonly impact: string;
  readonly businessImpact: string;
  readonly recommendation: string;
  readonly audience: readonly Audience[];
  readonly severity: Severity;
  readonly priority: number;
  readonly effort: Effort;
  readonly references: readonly Reference[];
}

export interface DimensionScore {
  readonly score: number;
  readonly measured: boolean;
}

export interface PillarScore {
  readonly score: number;
  readonly passed: number;
  readonly total: number;
}

export interface CriticalIssue {
  readonly id: string;
  readonly title: string;
  readonly pillar: Pillar;
  readonly severity: Severity;
}

export interface CommerceRisk {
  readonly level: 'low' | 'medium' | 'high';
  readonly signals: readonly string[];
}

/** How one check came out (docs/scanner.md, "Every check's result"): passed ones included. */
export type CheckReportStatus = 'pass' | 'fail' | 'informational' | 'not_applicable' | 'not_measured' | 'error';

export interface CheckReport {
  readonly id: string;
  readonly dimension: Dimension;
  readonly pillar: Pillar;
  readonly status: CheckReportStatus;
  /** What was observed, for every status (a pass says what passed; an error says what broke). */
  readonly evidence: string;
  readonly version: number;
}

export interface Assessment {
  readonly scanId: string;
  readonly requestId: string;
  readonly url: string;
  readonly timestamp: string;
  readonly globalScore: number;
  readonly grade: Grade;
  readonly profile: Profile;
  readonly mode: 'static';
  /** Version of the scoring algorithm that produced the scores (docs/architecture.md): scores of different versions differ. */
  readonly scoringVersion: string;
  readonly checksSummary: { readonly passed: number; readonly total: number };
  readonly commerceRisk: CommerceRisk | null;
  readonly findings: readonly Finding[];
  readonly dimensions: Readonly<Record<Dimension, DimensionScore>>;
  readonly pillars: Readonly<Record<Pillar, PillarScore>>;
  readonly criticalIssues: readonly CriticalIssue[];
  /** Every check that ran and its result, as Lighthouse lists its audits; `findings` stay the failures. */
  readonly checks: readonly CheckReport[];
}
