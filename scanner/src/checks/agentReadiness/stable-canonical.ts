import { PAGE_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { hasToken } from '../dom.js';

/** Agents cite and revisit URLs: the page should declare a canonical without session or tracking parameters. */
const VOLATILE = /[?&](utm_[a-z]+|gclid|fbclid|sessionid|sid|jsessionid|phpsessid)=/i;

export const stableCanonical: Check<'page'> = {
  id: 'agentReadiness.stable-canonical',
  pillar: 'auditAgentic',
  dimension: 'agentReadiness',
  profiles: PAGE_PROFILES,
  weight: WEIGHT.minor,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['development', 'marketing'],
  references: [REF.gscCanonical, REF.lhCanonical],
  run({ page, derived }) {
    const href = (derived.tag(page, 'link').find((el) => hasToken(el, 'rel', 'canonical'))?.attribs['href'] ?? '').trim();
    const text = {
      effort: 'Baixo' as const,
      impact: 'Without a stable canonical, agents cite whichever variant they fetched (with tracking or session parameters).',
      businessImpact: 'Citations and links to the site fragment across URL variants.',
      recommendation: 'Declare <link rel="canonical"> with the clean, absolute URL of each page (no session or tracking parameters).',
    };
    if (!href) return fail({ ...text, severity: 'Low', title: 'No canonical URL for agents to cite', evidence: 'No <link rel="canonical"> in the document.' });
    if (VOLATILE.test(href) || /;jsessionid=/i.test(href)) {
      return fail({ ...text, severity: 'Low', score: 0.3, title: 'Canonical URL carries session or tracking parameters', evidence: `<link rel="canonical" href="${href}">.` });
    }
    return pass(`<link rel="canonical" href="${href}">.`);
  },
};
