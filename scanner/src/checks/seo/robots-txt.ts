import { ALL_PROFILES, fail, info, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Lighthouse robots-txt: when served, robots.txt must parse; a 5xx is a failure (crawlers then stop crawling). */
export const robotsTxt: Check<'robotsTxt'> = {
  id: 'seo.robots-txt',
  pillar: 'readiness',
  dimension: 'seo',
  profiles: ALL_PROFILES,
  weight: WEIGHT.standard,
  needs: ['robotsTxt'],
  version: 1,
  audience: ['marketing', 'development'],
  references: [REF.lhRobotsTxt, REF.rfc9309],
  run({ robotsTxt: probe, derived }) {
    const text = {
      effort: 'Baixo' as const,
      impact: 'Crawlers read robots.txt to learn what they may fetch and where the sitemap is.',
      businessImpact: 'Errors here can hide the whole site from search engines and AI crawlers, or expose what should be excluded.',
      recommendation: 'Serve a plain-text /robots.txt with valid User-agent / Allow / Disallow / Sitemap lines (RFC 9309).',
    };
    const status = probe.status ?? 0;
    if (status >= 500) {
      return fail({ ...text, severity: 'High', title: 'robots.txt answers with a server error', evidence: `${probe.url} answered ${status}: Google stops crawling the site while robots.txt fails.` });
    }
    if (status !== 200) return info({ ...text, title: 'No robots.txt', evidence: `${probe.url} answered ${status}: crawlers assume everything is allowed.` });
    if (/^\s*</.test(probe.body)) {
      return fail({ ...text, severity: 'Medium', title: 'robots.txt is an HTML page', evidence: `${probe.url} returned markup (${probe.contentType}) instead of robots rules.` });
    }
    const robots = derived.robots(probe);
    if (robots.invalidLines.length > 0) {
      return fail({
        ...text,
        severity: 'Low',
        score: 0.5,
        title: 'robots.txt has invalid lines',
        evidence: `${robots.invalidLines.length} line(s) not understood: ${robots.invalidLines.slice(0, 3).map((l) => `line ${l.line}: "${l.text}"`).join('; ')}.`,
      });
    }
    return pass(`${probe.url}: ${robots.groups.length} group(s), ${robots.sitemaps.length} sitemap line(s), no errors.`);
  },
};
