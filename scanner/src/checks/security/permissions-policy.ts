import { ALL_PROFILES, fail, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

export const permissionsPolicy: Check<'page'> = {
  id: 'security.permissions-policy',
  pillar: 'securityGovernance',
  dimension: 'security',
  profiles: ALL_PROFILES,
  weight: WEIGHT.minor,
  needs: ['page'],
  version: 1,
  audience: ['development', 'security'],
  references: [REF.permissionsPolicy, REF.owaspHeaders],
  run({ page }) {
    const value = page.headers['permissions-policy'];
    if (value && value.trim() !== '') return pass(`Permissions-Policy: ${quote(value)}.`);
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      score: 0.5,
      title: 'Permissions-Policy header missing',
      evidence: 'No Permissions-Policy header.',
      impact: 'Any script or embedded frame on the page may ask for the camera, microphone, geolocation or payment APIs.',
      businessImpact: 'A compromised third-party script has more reach than the site needs to give it.',
      recommendation: 'Disable the features the site does not use, e.g. "Permissions-Policy: camera=(), microphone=(), geolocation=()".',
    });
  },
};
