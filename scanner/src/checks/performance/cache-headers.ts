import { ALL_PROFILES, fail, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/**
 * The document states a caching policy (Cache-Control) and can be revalidated (ETag or Last-Modified). HTML is often
 * rightly "no-cache"; what matters is that the policy is explicit and revalidation is cheap.
 */
export const cacheHeaders: Check<'page'> = {
  id: 'performance.cache-headers',
  pillar: 'readiness',
  dimension: 'performance',
  profiles: ALL_PROFILES,
  weight: WEIGHT.minor,
  needs: ['page'],
  version: 1,
  audience: ['development'],
  references: [REF.mdnCaching, REF.httpCache],
  run({ page }) {
    const cc = page.headers['cache-control'];
    const validator = page.headers['etag'] ? `ETag ${quote(page.headers['etag'])}` : page.headers['last-modified'] ? `Last-Modified ${quote(page.headers['last-modified'])}` : '';
    if (cc && validator) return pass(`Cache-Control: ${quote(cc)}; ${validator}.`);
    const missing = [cc ? '' : 'Cache-Control', validator ? '' : 'ETag or Last-Modified'].filter(Boolean);
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      score: cc || validator ? 0.5 : 0,
      title: 'Caching policy incomplete',
      evidence: `Missing ${missing.join(' and ')}${cc ? `; Cache-Control: ${quote(cc)}` : ''}${validator ? `; ${validator}` : ''}.`,
      impact: 'Without an explicit policy, browsers and CDNs guess how long to keep the page; without a validator, every revisit downloads it again.',
      businessImpact: 'Slower repeat visits and more load on the origin.',
      recommendation: 'Send an explicit Cache-Control (e.g. "no-cache" for HTML, "max-age=31536000, immutable" for versioned assets) and an ETag.',
    });
  },
};
