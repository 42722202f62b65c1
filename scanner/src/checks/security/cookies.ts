import { ALL_PROFILES, fail, info, notApplicable, pass, type Check } from '../check.js';
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
    const sameSiteOnly: string[] = [];
    let worst = 1;
    for (const header of page.setCookies) {
      const c = parseSetCookie(header);
      const name = c.name || '(unnamed)';
      const missing: string[] = [];
      if (!c.secure) missing.push(c.sameSite === 'none' ? 'Secure (required by SameSite=None)' : 'Secure');
      // A cookie read by script (e.g. a CSRF token) may lack HttpOnly; a session cookie may not.
      if (!c.httpOnly && SESSION_NAME.test(c.name) && !/csrf|xsrf/i.test(c.name)) missing.push('HttpOnly');
      if (missing.length > 0) {
        worst = 0;
        problems.push(`${name}: missing ${[...missing, ...(c.sameSite === '' ? ['SameSite'] : [])].join(', ')}`);
      } else if (c.sameSite === '') sameSiteOnly.push(name);
    }
    const text = {
      effort: 'Baixo' as const,
      impact: 'Cookies without Secure travel over plain HTTP; without HttpOnly an injected script can read a session; without SameSite they ride along on cross-site requests (CSRF).',
      businessImpact: 'Customer sessions can be stolen or abused, leading to account takeover.',
      recommendation: 'Set Secure and SameSite=Lax (or Strict) on every cookie, and HttpOnly on every session or authentication cookie; consider the __Host- prefix.',
    };
    // Like Observatory, a missing SameSite alone costs nothing (browsers default to Lax): told, not scored.
    if (problems.length === 0 && sameSiteOnly.length > 0) {
      return info({ ...text, title: 'Cookies without an explicit SameSite attribute', evidence: `Set-Cookie without SameSite: ${sameSiteOnly.join(', ')} (browsers default to Lax).` });
    }
    if (problems.length === 0) return pass(`${page.setCookies.length} cookie(s), all Secure with SameSite; session cookies HttpOnly.`);
    return fail({
      ...text,
      severity: 'Medium',
      score: worst,
      title: 'Cookies set without protective attributes',
      evidence: `Set-Cookie attributes missing: ${problems.join('; ')}${sameSiteOnly.length ? `; without SameSite only: ${sameSiteOnly.join(', ')}` : ''}.`,
    });
  },
};
