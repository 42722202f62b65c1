import { ALL_PROFILES, fail, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { parseCsp } from '../../parse/csp.js';

/** Clickjacking protection: CSP frame-ancestors, or X-Frame-Options DENY/SAMEORIGIN (Observatory's x-frame-options test). */
export const frameAncestors: Check<'page'> = {
  id: 'security.frame-ancestors',
  pillar: 'securityGovernance',
  dimension: 'security',
  profiles: ALL_PROFILES,
  weight: WEIGHT.standard,
  needs: ['page'],
  version: 1,
  audience: ['development', 'security'],
  references: [REF.frameAncestors, REF.xfo, REF.owaspClickjacking, REF.observatory],
  run({ page }) {
    // frame-ancestors is ignored in <meta> policies (CSP3), so only the header counts.
    const header = page.headers['content-security-policy'] ?? '';
    const fa = parseCsp(header)
      .map((p) => p.get('frame-ancestors'))
      .find((v) => v !== undefined);
    if (fa && !fa.includes('*')) return pass(`Content-Security-Policy frame-ancestors ${quote(fa.join(' ') || "''")}.`);
    const xfo = page.headers['x-frame-options'];
    if (xfo && /^\s*(deny|sameorigin)\s*$/i.test(xfo)) return pass(`X-Frame-Options: ${quote(xfo)}.`);
    return fail({
      severity: 'Medium',
      effort: 'Baixo',
      title: 'Page can be framed by any site (no clickjacking protection)',
      evidence: xfo
        ? `X-Frame-Options: ${quote(xfo)} is not DENY or SAMEORIGIN, and no CSP frame-ancestors is set.`
        : fa
          ? `Content-Security-Policy frame-ancestors ${quote(fa.join(' '))} allows any origin.`
          : 'Neither Content-Security-Policy frame-ancestors nor X-Frame-Options is sent.',
      impact: 'Another site can load this page in an invisible frame and trick users into clicking its buttons (clickjacking).',
      businessImpact: 'Users can be led into actions they never meant (purchases, settings changes) on the brand’s own pages.',
      recommendation: "Add \"frame-ancestors 'self'\" (or 'none') to the Content-Security-Policy header; keep X-Frame-Options: SAMEORIGIN for old browsers.",
    });
  },
};
