import { ALL_PROFILES, fail, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** http:// must send visitors to https:// (Observatory's "redirection" test). */
export const httpsRedirect: Check<'httpsRedirect'> = {
  id: 'security.https-redirect',
  pillar: 'securityGovernance',
  dimension: 'security',
  profiles: ALL_PROFILES,
  weight: WEIGHT.standard,
  needs: ['httpsRedirect'],
  version: 1,
  audience: ['development', 'security'],
  references: [REF.observatory, REF.owaspTls],
  run({ httpsRedirect: r }) {
    if (r.redirectsToHttps) return pass(`${r.url} answers ${r.status ?? ''} with Location ${quote(r.location ?? '')}.`);
    // Nothing listening on port 80 is fine: there is no plain-HTTP site to downgrade to (Observatory: "not needed").
    if (r.status === null && (r.error === 'refused' || r.error === 'timeout')) return pass(`${r.url} does not answer (${r.error}): no plain-HTTP site exists.`);
    return fail({
      severity: 'Medium',
      effort: 'Baixo',
      title: 'HTTP does not redirect to HTTPS',
      evidence:
        r.status === null
          ? `${r.url} failed: ${r.error ?? 'no answer'}.`
          : `${r.url} answered ${r.status}${r.location ? ` with Location ${quote(r.location)}` : ' without redirecting'} (first hop must go to https:// on the same host).`,
      impact: 'Visitors who type the address or follow old http:// links stay on an unencrypted connection.',
      businessImpact: 'Part of the traffic is exposed to interception and sees "Not secure" warnings.',
      recommendation: 'Answer every http:// request with a 301 to the same host and path on https://, then enable HSTS.',
    });
  },
};
