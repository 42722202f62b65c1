/**
 * The whole scoring model in one file (docs/architecture.md): weight tiers, dimension weights per profile, grade thresholds,
 * priorities, and the algorithm that turns check results into scores. Checks never hold numbers of their own beyond
 * naming a tier. Change anything here and bump SCORING_VERSION: every assessment records it.
 *
 * Model (Lighthouse-like): a check scores 1 (pass), 0 (fail) or partial credit. A dimension is the weighted mean of its
 * scored checks, 0-100; a dimension with no scored check is not measured and does not weigh on the global score. The
 * global score is the mean of the measured dimensions, weighted by the resolved profile's dimension weights.
 * Informational, not-applicable, not-measured and errored checks never count.
 */
import { DIMENSIONS, PILLARS, type Dimension, type Pillar, type Profile, type Severity } from '../checks/check.js';

export const SCORING_VERSION = '2026-11-22.1';

/** Weight tiers a check picks from. */
export const WEIGHT = Object.freeze({ critical: 10, major: 6, standard: 3, minor: 1 });


/** How much each dimension weighs on the global score, per resolved profile (each row sums to 100). */
export const DIMENSION_WEIGHTS: Readonly<Record<Profile, Readonly<Record<Dimension, number>>>> = {
  content: { security: 25, privacy: 10, performance: 15, seo: 20, accessibility: 10, aiDiscovery: 10, agentReadiness: 10 },
  commerce: { security: 30, privacy: 15, performance: 15, seo: 15, accessibility: 10, aiDiscovery: 8, agentReadiness: 7 },
  api: { security: 40, privacy: 5, performance: 15, seo: 5, accessibility: 0, aiDiscovery: 10, agentReadiness: 25 },
};

/** Every grade, best first. */
export const GRADES = ['A', 'B', 'C', 'D', 'F'] as const;
export type Grade = (typeof GRADES)[number];

/** Lower bound of each grade, checked in order; below the last: F. */
export const GRADE_THRESHOLDS: readonly (readonly [Exclude<Grade, 'F'>, number])[] = [
  ['A', 90],
  ['B', 80],
  ['C', 70],
  ['D', 60],
];

/** Finding priority by severity (1 = fix first). */
export const SEVERITY_PRIORITY: Readonly<Record<Severity, number>> = { High: 1, Medium: 2, Low: 3, Informational: 4 };

/** A check result as scoring sees it: score in [0, 1], or null when it does not count. */
export interface ScoredResult {
  readonly id: string;
  readonly pillar: Pillar;
  readonly dimension: Dimension;
  readonly weight: number;
  readonly score: number | null;
  readonly passed: boolean;
}

export interface Scores {
  readonly globalScore: number;
  readonly grade: Grade;
  readonly dimensions: Record<Dimension, { score: number; measured: boolean }>;
  readonly pillars: Record<Pillar, { score: number; passed: number; total: number }>;
  readonly checksSummary: { passed: number; total: number };
}

export function gradeFor(score: number): Grade {
  for (const [grade, min] of GRADE_THRESHOLDS) if (score >= min) return grade;
  return 'F';
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

export function score(results: readonly ScoredResult[], profile: Profile): Scores {
  const dimAcc = new Map<Dimension, { sum: number; weight: number }>();
  const pillarAcc = new Map<Pillar, { sum: number; weight: number; passed: number; total: number }>();
  let passed = 0;
  let total = 0;
  for (const r of results) {
    if (r.score === null) continue;
    total++;
    if (r.passed) passed++;
    const d = dimAcc.get(r.dimension) ?? { sum: 0, weight: 0 };
    d.sum += r.score * r.weight;
    d.weight += r.weight;
    dimAcc.set(r.dimension, d);
    const p = pillarAcc.get(r.pillar) ?? { sum: 0, weight: 0, passed: 0, total: 0 };
    p.sum += r.score * r.weight;
    p.weight += r.weight;
    p.total++;
    if (r.passed) p.passed++;
    pillarAcc.set(r.pillar, p);
  }

  const dimensions = {} as Record<Dimension, { score: number; measured: boolean }>;
  let globalSum = 0;
  let globalWeight = 0;
  for (const dim of DIMENSIONS) {
    const acc = dimAcc.get(dim);
    const measured = acc !== undefined && acc.weight > 0;
    const s = measured ? (acc.sum / acc.weight) * 100 : 0;
    dimensions[dim] = { score: round1(s), measured };
    const w = DIMENSION_WEIGHTS[profile][dim];
    if (measured && w > 0) {
      globalSum += s * w;
      globalWeight += w;
    }
  }

  const pillars = {} as Record<Pillar, { score: number; passed: number; total: number }>;
  for (const pillar of PILLARS) {
    const acc = pillarAcc.get(pillar);
    pillars[pillar] = acc && acc.weight > 0
      ? { score: round1((acc.sum / acc.weight) * 100), passed: acc.passed, total: acc.total }
      : { score: 0, passed: 0, total: 0 };
  }

  const globalScore = globalWeight > 0 ? round1(globalSum / globalWeight) : 0;
  return { globalScore, grade: gradeFor(globalScore), dimensions, pillars, checksSummary: { passed, total } };
}
