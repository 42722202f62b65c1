import { ALL_PROFILES, fail, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Days of validity below which renewal is overdue in practice (ACME clients renew at 30). */
const RENEWAL_DAYS = 14;

export const certificate: Check<'tls'> = {
  id: 'security.certificate',
  pillar: 'securityGovernance',
  dimension: 'security',
  profiles: ALL_PROFILES,
  weight: WEIGHT.critical,
  needs: ['tls'],
  version: 1,
  audience: ['executive', 'development', 'security'],
  references: [REF.owaspTls, REF.whyHttps],
  run({ tls }) {
    const who = `subject ${quote(tls.subject)}, issuer ${quote(tls.issuer)}, valid ${tls.validFrom} to ${tls.validTo}`;
    const text = {
      effort: 'Baixo' as const,
      impact: 'Browsers block the page with a full-screen certificate warning; API clients refuse to connect.',
      businessImpact: 'The site is effectively down for visitors and integrations until the certificate is fixed.',
      recommendation: 'Install a certificate from a public CA that covers this host name, with the full chain, and automate renewal (ACME).',
    };
    if (!tls.authorized || tls.daysRemaining < 0) {
      return fail({
        ...text,
        severity: 'High',
        title: tls.daysRemaining < 0 ? 'TLS certificate has expired' : 'TLS certificate is not trusted for this host',
        evidence: `${tls.authorizationError ?? (tls.daysRemaining < 0 ? 'CERT_HAS_EXPIRED' : 'not authorized')}: ${who}.`,
      });
    }
    if (tls.daysRemaining < RENEWAL_DAYS) {
      return fail({
        ...text,
        severity: 'Medium',
        score: 0.5,
        title: 'TLS certificate expires soon',
        evidence: `${tls.daysRemaining} day(s) left: ${who}.`,
      });
    }
    return pass(`Certificate valid for this host, ${tls.daysRemaining} days left (${tls.protocol ?? 'TLS'}): ${who}.`);
  },
};
