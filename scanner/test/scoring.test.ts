import { describe, expect, it } from 'vitest';
import { DIMENSIONS } from '../src/checks/check.js';
import { DIMENSION_WEIGHTS, gradeFor, score, SCORING_VERSION, type ScoredResult } from '../src/scoring/scoring.js';

const r = (dimension: ScoredResult['dimension'], s: number | null, weight = 3, pillar: ScoredResult['pillar'] = 'readiness'): ScoredResult => ({
  id: `${dimension}.x`, pillar, dimension, weight, score: s, passed: s === 1,
});

describe('scoring', () => {
  it('grades with the thresholds A>=90, B>=80, C>=70, D>=60, else F', () => {
    expect([90, 89.9, 80, 79.9, 70, 69.9, 60, 59.9, 0].map(gradeFor)).toEqual(['A', 'B', 'B', 'C', 'C', 'D', 'D', 'F', 'F']);
  });

  it('a dimension is the weighted mean of its scored checks, 0-100', () => {
    const s = score([r('security', 1, 10), r('security', 0, 10), r('security', null, 6)], 'content');
    expect(s.dimensions.security).toEqual({ score: 50, measured: true });
  });

  it('unmeasured dimensions are reported as such and do not weigh on the global score', () => {
    const s = score([r('security', 1), r('seo', 0.5)], 'content');
    expect(s.dimensions.privacy).toEqual({ score: 0, measured: false });
    const w = DIMENSION_WEIGHTS.content;
    expect(s.globalScore).toBeCloseTo((100 * w.security + 50 * w.seo) / (w.security + w.seo), 1);
  });

  it('weights dimensions by profile', () => {
    const results = [r('security', 1), r('accessibility', 0)];
    expect(score(results, 'content').globalScore).toBeLessThan(100);
    // An api does not weigh accessibility at all.
    expect(score(results, 'api').globalScore).toBe(100);
  });

  it('pillars and checksSummary count scored checks only', () => {
    const s = score([r('security', 1, 3, 'securityGovernance'), r('security', 0, 3, 'securityGovernance'), r('seo', null, 3, 'aeo')], 'content');
    expect(s.pillars.securityGovernance).toEqual({ score: 50, passed: 1, total: 2 });
    expect(s.pillars.aeo).toEqual({ score: 0, passed: 0, total: 0 });
    expect(s.checksSummary).toEqual({ passed: 1, total: 2 });
  });

  it('every profile row has a weight for each of the seven dimensions, summing to 100', () => {
    for (const row of Object.values(DIMENSION_WEIGHTS)) {
      expect(Object.keys(row).sort()).toEqual([...DIMENSIONS].sort());
      expect(Object.values(row).reduce((a, b) => a + b, 0)).toBe(100);
    }
    expect(SCORING_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}\.\d+$/);
  });
});
