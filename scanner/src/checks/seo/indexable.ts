import { ALL_PROFILES, fail, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { isAllowed } from '../../parse/robots-txt.js';

/** Search bots whose blocking makes a page uncrawlable (Lighthouse is-crawlable looks at the same directives). */
const BOT_TOKENS = /(^|[\s,])(noindex|none)([\s,]|$)/i;

/** Lighthouse is-crawlable: no noindex in robots meta / X-Robots-Tag, and robots.txt does not block the page. */
export const indexable: Check<'page' | 'robotsTxt'> = {
  id: 'seo.indexable',
  pillar: 'readiness',
  dimension: 'seo',
  profiles: ALL_PROFILES,
  weight: WEIGHT.critical,
  needs: ['page', 'robotsTxt'],
  needsHtml: true,
  version: 1,
  audience: ['executive', 'marketing', 'development'],
  references: [REF.lhCrawlable, REF.gscRobotsMeta, REF.rfc9309],
  run({ page, robotsTxt, derived }) {
    const blockers: string[] = [];
    for (const el of derived.tag(page, 'meta')) {
      const name = (el.attribs['name'] ?? '').toLowerCase();
      const content = el.attribs['content'] ?? '';
      if ((name === 'robots' || name === 'googlebot') && BOT_TOKENS.test(content)) blockers.push(`<meta name="${el.attribs['name']}" content="${content}">`);
    }
    const xrt = page.headers['x-robots-tag'];
    // An X-Robots-Tag scoped to another bot ("otherbot: noindex") does not block Google; unscoped or googlebot does.
    if (xrt && xrt.split(',').some((part) => BOT_TOKENS.test(part) && (!/^\s*[\w-]+\s*:/.test(part) || /^\s*googlebot\s*:/i.test(part)))) {
      blockers.push(`X-Robots-Tag: ${quote(xrt)}`);
    }
    const url = new URL(page.finalUrl);
    const robots = derived.robots(robotsTxt);
    if (!isAllowed(robots, 'googlebot', url.pathname + url.search)) blockers.push(`robots.txt disallows ${url.pathname} for Googlebot`);
    if (blockers.length === 0) return pass('No noindex directive; robots.txt allows the page.');
    return fail({
      severity: 'High',
      effort: 'Baixo',
      title: 'Page is blocked from search indexing',
      evidence: blockers.join('; '),
      impact: 'Search engines will drop the page from their index or never crawl it.',
      businessImpact: 'The page gets no organic search traffic; if unintended, this is a major visibility loss.',
      recommendation: 'Remove noindex from the robots meta tag / X-Robots-Tag and the Disallow rule in robots.txt for pages that should be found.',
    });
  },
};
