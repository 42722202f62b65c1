import type { CommerceRisk } from '../assessment/assessment.js';
import type { CheckResult } from '../checks/runner.js';

/** Failed checks that put a shop's customers or payments at risk, and how each is told to the merchant. */
const RISKS: Readonly<Record<string, { signal: string; grave: boolean }>> = {
  'security.https': { signal: 'checkout pages not served over HTTPS', grave: true },
  'security.certificate': { signal: 'TLS certificate invalid or expiring', grave: true },
  'security.mixed-content': { signal: 'insecure (http://) resources on HTTPS pages', grave: true },
  'security.csp': { signal: 'no effective Content-Security-Policy against script injection (card skimming)', grave: false },
  'security.sri': { signal: 'third-party scripts without Subresource Integrity', grave: false },
  // Said from the finding below (hstsSignal): a header that is present but short or invalid is not "no HSTS".
  'security.hsts': { signal: 'HSTS missing or too weak: first visits can be downgraded to HTTP', grave: false },
  'security.cookies': { signal: 'session cookies without Secure/HttpOnly/SameSite', grave: false },
  'security.frame-ancestors': { signal: 'pages can be framed (clickjacking on purchase buttons)', grave: false },
  'privacy.privacy-policy-link': { signal: 'no privacy policy link (LGPD/GDPR)', grave: false },
  'privacy.third-party-trackers': { signal: 'third-party trackers loaded with the page', grave: false },
};

/**
 * commerceRisk (docs/decisions.md: commerce profile only): high when a grave signal is present or four or more add up,
 * medium from two, else low. `profileSignals` say why the site was judged a shop.
 */
export function commerceRisk(results: readonly CheckResult[], profileSignals: readonly string[]): CommerceRisk {
  const failed = results.filter((r) => r.status === 'fail' && RISKS[r.check.id]);
  const risks = failed
    .map((r) => {
      const risk = RISKS[r.check.id];
      return risk === undefined || r.check.id !== 'security.hsts' ? risk : { ...risk, signal: hstsSignal(r) };
    })
    .filter((x): x is { signal: string; grave: boolean } => x !== undefined);
  const level = risks.some((r) => r.grave) || risks.length >= 4 ? 'high' : risks.length >= 2 ? 'medium' : 'low';
  return { level, signals: [...risks.map((r) => r.signal), ...profileSignals.map((s) => `commerce detected: ${s}`)] };
}

/** What is true of the site's HSTS: absent, present but invalid, or present with a short max-age (the finding's evidence). */
function hstsSignal(r: CheckResult): string {
  const title = r.finding?.title ?? '';
  if (title.includes('missing')) return 'no HSTS: first visits can be downgraded to HTTP';
  if (title.includes('invalid')) return `HSTS header present but invalid (${r.evidence}): browsers ignore it, so first visits can be downgraded to HTTP`;
  return `HSTS present but short (${r.evidence}): protection lapses between visits further apart than its max-age`;
}
