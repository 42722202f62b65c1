import { ALL_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Lighthouse http-status-code: a 4xx/5xx page is not indexed. */
export const httpStatus: Check<'page'> = {
  id: 'seo.http-status',
  pillar: 'readiness',
  dimension: 'seo',
  profiles: ALL_PROFILES,
  weight: WEIGHT.critical,
  needs: ['page'],
  version: 1,
  audience: ['executive', 'development'],
  references: [REF.lhStatus],
  run({ page }) {
    const status = page.status ?? 0;
    if (status >= 200 && status < 400) return pass(`${page.finalUrl} answered ${status}.`);
    return fail({
      severity: 'High',
      effort: 'Médio',
      title: 'Page answers with an error status',
      evidence: `${page.finalUrl} answered HTTP ${status}.`,
      impact: 'Pages answering 4xx or 5xx are not indexed and agents treat them as missing.',
      businessImpact: 'Visitors and crawlers see an error instead of the page.',
      recommendation: 'Serve the page with 200, or redirect (301) a moved page to its new address.',
    });
  },
};
