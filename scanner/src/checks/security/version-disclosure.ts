import { ALL_PROFILES, fail, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

const HEADERS = ['server', 'x-powered-by', 'x-aspnet-version', 'x-aspnetmvc-version', 'x-generator'];
/** A product token followed by a version number, e.g. "nginx/1.18.0", "PHP/8.1.2", "4.0.30319". */
const VERSION = /\d+\.\d+/;

export const versionDisclosure: Check<'page'> = {
  id: 'security.version-disclosure',
  pillar: 'securityGovernance',
  dimension: 'security',
  profiles: ALL_PROFILES,
  weight: WEIGHT.minor,
  needs: ['page'],
  version: 1,
  audience: ['development', 'security'],
  references: [REF.owaspFingerprint, REF.serverHeader],
  run({ page }) {
    const disclosed = HEADERS.filter((h) => {
      const v = page.headers[h];
      return v !== undefined && (h !== 'server' ? v.trim() !== '' : VERSION.test(v));
    });
    if (disclosed.length === 0) return pass('No software versions disclosed in Server / X-Powered-By headers.');
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      title: 'Server software and version disclosed in headers',
      evidence: disclosed.map((h) => `${h}: ${quote(page.headers[h] ?? '')}`).join('; '),
      impact: 'Exact versions let attackers match the server against known vulnerabilities without probing.',
      businessImpact: 'Makes the site a cheaper target for automated exploitation.',
      recommendation: 'Remove X-Powered-By / X-AspNet-Version and strip versions from Server (e.g. nginx "server_tokens off").',
    });
  },
};
