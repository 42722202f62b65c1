import { ALL_PROFILES, fail, notApplicable, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Lighthouse crawlable-anchors: anchors must have a resolvable href, not javascript: or an empty one with a click handler. */
export const crawlableLinks: Check<'page'> = {
  id: 'seo.crawlable-links',
  pillar: 'readiness',
  dimension: 'seo',
  profiles: ALL_PROFILES,
  weight: WEIGHT.minor,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['development'],
  references: [REF.lhCrawlableAnchors],
  run({ page, derived }) {
    const anchors = derived.tag(page, 'a');
    if (anchors.length === 0) return notApplicable('No links on the page.');
    const bad = anchors
      .filter((el) => {
        const href = el.attribs['href'];
        if (el.attribs['name'] !== undefined && href === undefined) return false; // a named anchor is a target, not a link
        if (href === undefined) return el.attribs['onclick'] !== undefined;
        return /^\s*javascript:/i.test(href) || (href.trim() === '' && el.attribs['onclick'] !== undefined);
      })
      .map((el) => derived.html(page).html(el).slice(0, 100));
    if (bad.length === 0) return pass(`${anchors.length} link(s), all with crawlable href.`);
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      score: Math.max(0, 1 - bad.length / anchors.length),
      title: 'Links that crawlers cannot follow',
      evidence: `${bad.length} uncrawlable link(s): ${bad.slice(0, 3).join(', ')}.`,
      impact: 'Crawlers and agents follow href values only; script-driven links hide the pages behind them.',
      businessImpact: 'Pages reachable only through such links are not discovered by search or AI crawlers.',
      recommendation: 'Use <a href="/real/path"> for navigation; keep JavaScript handlers as an enhancement.',
    });
  },
};
