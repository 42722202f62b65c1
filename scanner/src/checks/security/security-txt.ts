import { ALL_PROFILES, fail, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** RFC 9116: /.well-known/security.txt with Contact (required) and Expires (required, in the future). */
export const securityTxt: Check<'securityTxt'> = {
  id: 'security.security-txt',
  pillar: 'securityGovernance',
  dimension: 'security',
  profiles: ALL_PROFILES,
  weight: WEIGHT.minor,
  needs: ['securityTxt'],
  version: 1,
  audience: ['security'],
  references: [REF.rfc9116],
  run({ securityTxt: probe }) {
    const text = {
      effort: 'Baixo' as const,
      impact: 'Researchers who find a vulnerability have no documented way to report it.',
      businessImpact: 'Vulnerabilities get disclosed publicly or not at all instead of reaching the security team.',
      recommendation: 'Publish /.well-known/security.txt (text/plain) with Contact: and Expires: fields, per RFC 9116.',
    };
    const body = probe.status === 200 && probe.contentType.startsWith('text/plain') ? probe.body : '';
    if (!body) {
      return fail({
        ...text,
        severity: 'Low',
        title: 'security.txt missing',
        evidence: `${probe.url} answered ${probe.status ?? 'nothing'}${probe.contentType ? ` (${probe.contentType})` : ''}.`,
      });
    }
    const contact = /^\s*contact\s*:\s*(\S+)/im.exec(body)?.[1];
    const expires = /^\s*expires\s*:\s*(.+)$/im.exec(body)?.[1]?.trim();
    const expiry = expires ? Date.parse(expires) : NaN;
    const problems: string[] = [];
    if (!contact) problems.push('no Contact field');
    if (!expires || Number.isNaN(expiry)) problems.push('no valid Expires field');
    else if (expiry < Date.parse(new Date().toISOString())) problems.push(`Expires ${quote(expires)} is in the past`);
    if (problems.length === 0) return pass(`${probe.url}: Contact ${quote(contact ?? '')}, Expires ${quote(expires ?? '')}.`);
    return fail({ ...text, severity: 'Low', score: 0.5, title: 'security.txt is incomplete', evidence: `${probe.url}: ${problems.join('; ')}.` });
  },
};
