import { ALL_PROFILES, fail, notApplicable, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Observatory's threshold: max-age of at least six months. */
const SIX_MONTHS_S = 15_768_000;

export const hsts: Check<'page'> = {
  id: 'security.hsts',
  pillar: 'securityGovernance',
  dimension: 'security',
  profiles: ALL_PROFILES,
  weight: WEIGHT.major,
  needs: ['page'],
  version: 1,
  audience: ['development', 'security'],
  references: [REF.hsts, REF.rfc6797, REF.owaspHsts, REF.observatory],
  run({ page }) {
    // Browsers ignore HSTS on plain HTTP responses (RFC 6797 §8.1); security.https reports that case.
    if (!page.finalUrl.startsWith('https://')) return notApplicable('Page is not served over HTTPS.');
    const value = page.headers['strict-transport-security'];
    const common = {
      effort: 'Baixo' as const,
      impact: 'Without HSTS a first visit or a typed http:// link can be downgraded and intercepted (SSL stripping).',
      businessImpact: 'Visitors on hostile networks (public Wi-Fi) can have sessions hijacked on the site’s name.',
      recommendation: 'Send "Strict-Transport-Security: max-age=63072000; includeSubDomains" on every HTTPS response (add "preload" once all subdomains are HTTPS).',
    };
    if (!value) {
      return fail({ ...common, severity: 'Medium', title: 'Strict-Transport-Security header missing', evidence: 'No Strict-Transport-Security header on the HTTPS response.' });
    }
    const match = /(?:^|;)\s*max-age\s*=\s*"?(\d+)"?/i.exec(value);
    if (!match) {
      return fail({ ...common, severity: 'Medium', title: 'Strict-Transport-Security header is invalid', evidence: `Strict-Transport-Security: ${quote(value)} has no valid max-age.` });
    }
    const maxAge = Number(match[1]);
    if (maxAge < SIX_MONTHS_S) {
      return fail({
        ...common,
        severity: 'Low',
        score: 0.5,
        title: 'HSTS max-age is shorter than six months',
        evidence: `Strict-Transport-Security: ${quote(value)} (max-age ${maxAge} s < ${SIX_MONTHS_S} s).`,
      });
    }
    return pass(`Strict-Transport-Security: ${quote(value)}.`);
  },
};
