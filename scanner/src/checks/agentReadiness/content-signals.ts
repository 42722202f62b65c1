import { ALL_PROFILES, fail, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Machine-readable AI usage preferences: Content-Signal (robots.txt) or Content-Usage (robots.txt or HTTP header, IETF aipref). */
export const contentSignals: Check<'page' | 'robotsTxt'> = {
  id: 'agentReadiness.content-signals',
  pillar: 'auditAgentic',
  dimension: 'agentReadiness',
  profiles: ALL_PROFILES,
  weight: WEIGHT.minor,
  needs: ['page', 'robotsTxt'],
  version: 1,
  audience: ['executive', 'marketing'],
  references: [REF.contentSignals, REF.aipref],
  run({ page, robotsTxt, derived }) {
    const lines = derived.robots(robotsTxt).contentSignals;
    const header = page.headers['content-usage'] ?? page.headers['content-signal'];
    if (lines.length > 0 || header) {
      return pass([lines.length ? `robots.txt: ${lines.slice(0, 3).map((l) => quote(l)).join(', ')}` : '', header ? `header ${quote(header)}` : ''].filter(Boolean).join('; '));
    }
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      title: 'No AI content-usage signals',
      evidence: 'No Content-Signal or Content-Usage line in robots.txt and no Content-Usage response header.',
      impact: 'Crawlers cannot tell whether the content may be used for search, AI input or training.',
      businessImpact: 'The site’s terms for AI reuse of its content are not machine-readable.',
      recommendation: 'Add a line such as "Content-Signal: search=yes, ai-input=yes, ai-train=no" to robots.txt (contentsignals.org).',
    });
  },
};
