import { ALL_PROFILES, fail, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

export const contentTypeOptions: Check<'page'> = {
  id: 'security.x-content-type-options',
  pillar: 'securityGovernance',
  dimension: 'security',
  profiles: ALL_PROFILES,
  weight: WEIGHT.standard,
  needs: ['page'],
  version: 1,
  audience: ['development', 'security'],
  references: [REF.xcto, REF.observatory],
  run({ page }) {
    const value = page.headers['x-content-type-options'];
    if (value && value.trim().toLowerCase() === 'nosniff') return pass(`X-Content-Type-Options: ${quote(value)}.`);
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      title: value ? 'X-Content-Type-Options has an invalid value' : 'X-Content-Type-Options header missing',
      evidence: value ? `X-Content-Type-Options: ${quote(value)} (only "nosniff" is valid).` : 'No X-Content-Type-Options header.',
      impact: 'Browsers may guess ("sniff") a response’s type and run an uploaded file as a script or stylesheet.',
      businessImpact: 'User-supplied files become a route for script injection on the site’s origin.',
      recommendation: 'Send "X-Content-Type-Options: nosniff" on every response.',
    });
  },
};
