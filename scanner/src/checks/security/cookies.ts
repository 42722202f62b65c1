import { ALL_PROFILES, fail, notApplicable, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { parseSetCookie } from '../../parse/set-cookie.js';

/** Names that usually carry a session or credential: those must be HttpOnly (Observatory's session-cookie rule). */
const SESSION_NAME = /sess|sid|auth|token|jwt|login|csrf|xsrf|remember/i;

export const cookies: Check<'page'> = {
  id: 'security.cookies',
  pillar: 'securityGovernance',
  dimension: 'security',
  profiles: ALL_PROFILES,
  weight: WEIGHT.major,
  needs: ['page'],
  version: 1,
  audience: ['development', 'security'],
  references: [REF.setCookie, REF.owaspSession, REF.observatory],
  run({ page }) {
    if (page.setCookies.length === 0) return notApplicable('The page sets no cookies.');
    const problems: string[] = [];
    let worst = 1;
    for (const header of page.setCookies) {
      const c = parseSetCookie(header);
      const missing: string[] = [];
      // A cookie read by script (e.g. a CSRF token) may lack HttpOnly; a session cookie may not.
      if (!c.secure) {
        missing.push('Secure');
        worst = Math.min(worst, 0);
      }
      if (!c.httpOnly && SESSION_NAME.test(c.name) && !/csrf|xsrf/i.test(c.name)) {
        missing.push('HttpOnly');
        worst = Math.min(worst, 0);
      }
      if (c.sameSite === '') {
        missing.push('SameSite');
        worst = Math.min(worst, 0.7);
      } else if (c.sameSite === 'none' && !c.secure) {
        missing.push('Secure (required by SameSite=None)');
      }
      if (missing.length > 0) problems.push(`${c.name || '(unnamed)'}: missing ${missing.join(', ')}`);
    }
    if (problems.length === 0) return pass(`${page.setCookies.length} cookie(s), all Secure with SameSite; session cookies HttpOnly.`);
    return fail({
      severity: worst === 0 ? 'Medium' : 'Low',
      effort: 'Baixo',
      score: worst,
      title: 'Cookies set without protective attributes',
      evidence: `Set-Cookie attributes missing: ${problems.join('; ')}.`,
      impact: 'Cookies without Secure travel over plain HTTP; without HttpOnly an injected script can read a session; without SameSite they ride along on cross-site requests (CSRF).',
      businessImpact: 'Customer sessions can be stolen or abused, leading to account takeover.',
      recommendation: 'Set Secure and SameSite=Lax (or Strict) on every cookie, and HttpOnly on every session or authentication cookie; consider the __Host- prefix.',
    });
  },
};
