import { ALL_PROFILES, fail, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** The page is served over HTTPS (after redirects). */
export const https: Check<'page'> = {
  id: 'security.https',
  pillar: 'securityGovernance',
  dimension: 'security',
  profiles: ALL_PROFILES,
  weight: WEIGHT.critical,
  needs: ['page'],
  version: 1,
  audience: ['executive', 'development', 'security'],
  references: [REF.whyHttps, REF.owaspTls],
  run({ page }) {
    if (page.finalUrl.startsWith('https://')) return pass(`Final URL ${quote(page.finalUrl)} is HTTPS.`);
    return fail({
      severity: 'High',
      effort: 'Médio',
      title: 'Page is not served over HTTPS',
      evidence: `Final URL after redirects: ${quote(page.finalUrl)} (redirect chain: ${page.redirectChain.join(' -> ')}).`,
      impact: 'Everything exchanged with the page can be read and altered on the network, including forms and session cookies.',
      businessImpact: 'Browsers label the site "Not secure", visitors leave, and search engines favour HTTPS pages.',
      recommendation: 'Serve the site over HTTPS with a certificate from a public CA and redirect every http:// URL to https://.',
    });
  },
};
