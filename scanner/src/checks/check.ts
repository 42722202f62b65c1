import type { Snapshot, SnapshotPart } from '../snapshot/snapshot.js';
import type { Derived } from './derived.js';

/**
 * The vocabularies of a check and its finding, declared once: the types, the scoring loops and the response schemas
 * all derive from these lists. Order is report order (scores list pillars and dimensions in it).
 */
export const PILLARS = ['readiness', 'aeo', 'auditAgentic', 'securityGovernance'] as const;
export const DIMENSIONS = ['security', 'privacy', 'performance', 'seo', 'accessibility', 'aiDiscovery', 'agentReadiness'] as const;
export const ALL_PROFILES = ['content', 'api', 'commerce'] as const;
export const SEVERITIES = ['High', 'Medium', 'Low', 'Informational'] as const;
export const EFFORTS = ['Baixo', 'Médio'] as const;
export const AUDIENCES = ['executive', 'marketing', 'development', 'security'] as const;

export type Pillar = (typeof PILLARS)[number];
export type Dimension = (typeof DIMENSIONS)[number];
export type Profile = (typeof ALL_PROFILES)[number];
export type Severity = (typeof SEVERITIES)[number];
export type Effort = (typeof EFFORTS)[number];
export type Audience = (typeof AUDIENCES)[number];

export interface Reference {
  readonly label: string;
  readonly url: string;
}

/** What a check gives back: only the parts it declared in `needs`, each guaranteed present, and the shared cache. */
export type CheckInput<N extends SnapshotPart> = { readonly [K in N]-?: NonNullable<Snapshot[K]> } & {
  readonly requestedUrl: string;
  readonly derived: Derived;
};

/** The text of a finding a check writes; the runner adds id, pillar, audience, priority and references. */
export interface Issue {
  readonly severity: Exclude<Severity, 'Informational'>;
  readonly effort: Effort;
  readonly title: string;
  /** What was observed, quoted, so a person can verify it. */
  readonly evidence: string;
  readonly impact: string;
  readonly businessImpact: string;
  readonly recommendation: string;
  /** Partial credit in [0, 1); 0 when omitted. */
  readonly score?: number;
}

export type Verdict =
  | { readonly outcome: 'pass'; readonly evidence: string }
  /** Scored below full marks, with a finding. */
  | { readonly outcome: 'fail'; readonly issue: Issue }
  /** Worth telling, never scored (a signal the site may not need). */
  | { readonly outcome: 'info'; readonly issue: Omit<Issue, 'severity' | 'score'> }
  /** The check does not apply to what was observed (e.g. no cookies set). Never scored. */
  | { readonly outcome: 'not_applicable'; readonly evidence: string };

/**
 * A check: data plus a pure function over the snapshot parts it declares (docs/architecture.md, "The scanner's assessment path").
 * `profiles` lists the profiles that need the signal; for any other profile a failure is reported as Informational and
 * never scored (docs/decisions.md). `weight` is one of the tiers in scoring/scoring.ts.
 */
export interface Check<N extends SnapshotPart = SnapshotPart> {
  readonly id: string;
  readonly pillar: Pillar;
  readonly dimension: Dimension;
  readonly profiles: readonly Profile[];
  readonly weight: number;
  readonly needs: readonly N[];
  /**
   * The check reads the page as HTML (it also needs 'page'): on any other page the runner answers not applicable
   * without running it, the way a Lighthouse audit declares the artifacts it requires.
   */
  readonly needsHtml?: true;
  /** Bumped when the check's logic changes, so two assessments can be compared. */
  readonly version: number;
  readonly audience: readonly Audience[];
  readonly references: readonly Reference[];
  // Method syntax on purpose: a Check<'page'> must fit in the registry's Check<SnapshotPart>[].
  run(input: CheckInput<N>): Verdict;
}

export const PAGE_PROFILES: readonly Profile[] = ['content', 'commerce'];

export const pass = (evidence: string): Verdict => ({ outcome: 'pass', evidence });
export const fail = (issue: Issue): Verdict => ({ outcome: 'fail', issue });
export const info = (issue: Omit<Issue, 'severity' | 'score'>): Verdict => ({ outcome: 'info', issue });
export const notApplicable = (evidence: string): Verdict => ({ outcome: 'not_applicable', evidence });

/** Quotes an observed value for evidence, cut so one huge header cannot flood a report. */
export function quote(value: string, max = 300): string {
  const v = value.length > max ? `${value.slice(0, max)}…` : value;
  return `"${v}"`;
}
