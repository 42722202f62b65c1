import { ALL_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** web.dev's TTFB thresholds: good at or below 800 ms, poor above 1800 ms. Measured from the scanner, one sample. */
const GOOD_MS = 800;
const POOR_MS = 1800;

export const ttfb: Check<'page'> = {
  id: 'performance.ttfb',
  pillar: 'readiness',
  dimension: 'performance',
  profiles: ALL_PROFILES,
  weight: WEIGHT.major,
  needs: ['page'],
  version: 1,
  audience: ['executive', 'development'],
  references: [REF.ttfb],
  run({ page }) {
    const ms = Math.round(page.ttfbMs);
    if (ms <= GOOD_MS) return pass(`Time to first byte ${ms} ms (good: <= ${GOOD_MS} ms).`);
    const poor = ms > POOR_MS;
    return fail({
      severity: poor ? 'Medium' : 'Low',
      effort: 'Médio',
      score: poor ? 0 : 0.5,
      title: poor ? 'Server responds slowly' : 'Server response time needs improvement',
      evidence: `Time to first byte ${ms} ms for ${page.finalUrl} (good: <= ${GOOD_MS} ms, poor: > ${POOR_MS} ms; one sample from the scanner).`,
      impact: 'Everything on the page waits for the first byte; slow TTFB delays every later metric (LCP, FCP).',
      businessImpact: 'Slower pages convert worse and are crawled less.',
      recommendation: 'Cache rendered HTML (CDN or server cache), reduce server work per request and serve from a region near users.',
    });
  },
};
