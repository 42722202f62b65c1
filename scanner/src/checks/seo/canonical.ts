import { ALL_PROFILES, fail, info, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { hasToken } from '../dom.js';

/**
 * Lighthouse canonical: when a rel=canonical is declared it must be a single, valid, absolute http(s) URL on a sensible
 * target. Like Lighthouse, a page without one is not failed (agentReadiness.stable-canonical goes further).
 */
export const canonical: Check<'page'> = {
  id: 'seo.canonical',
  pillar: 'readiness',
  dimension: 'seo',
  profiles: ALL_PROFILES,
  weight: WEIGHT.standard,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['marketing', 'development'],
  references: [REF.lhCanonical, REF.gscCanonical],
  run({ page, derived }) {
    const hrefs = [...new Set(derived.tag(page, 'link').filter((el) => hasToken(el, 'rel', 'canonical')).map((el) => (el.attribs['href'] ?? '').trim()))];
    const text = {
      effort: 'Baixo' as const,
      impact: 'Search engines may index a duplicate URL (with tracking parameters, another host) instead of the preferred one.',
      businessImpact: 'Ranking signals are split across duplicates of the same page.',
      recommendation: 'Declare exactly one <link rel="canonical" href="https://…"> with the absolute preferred URL of the page.',
    };
    if (hrefs.length === 0) return info({ ...text, title: 'No canonical URL declared', evidence: 'No <link rel="canonical"> in the document.' });
    if (hrefs.length > 1) {
      return fail({ ...text, severity: 'Medium', title: 'Conflicting canonical URLs', evidence: `Several canonicals: ${hrefs.map((h) => `"${h}"`).join(', ')}.` });
    }
    const href = hrefs[0] ?? '';
    let target: URL;
    try {
      target = new URL(href);
    } catch {
      return fail({ ...text, severity: 'Medium', title: 'Canonical URL is not a valid absolute URL', evidence: `<link rel="canonical" href="${href}">.` });
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return fail({ ...text, severity: 'Medium', title: 'Canonical URL is not an http(s) URL', evidence: `<link rel="canonical" href="${href}">.` });
    }
    const here = new URL(page.finalUrl);
    // Lighthouse flags a deep page whose canonical is the site root: it tells engines the page is a duplicate of home.
    if (target.origin === here.origin && target.pathname === '/' && here.pathname !== '/') {
      return fail({ ...text, severity: 'Medium', title: 'Canonical points to the site root from a deeper page', evidence: `Page ${page.finalUrl} declares canonical "${href}".` });
    }
    return pass(`<link rel="canonical" href="${href}">.`);
  },
};
