import { PAGE_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

const HEADING = /^h[1-6]$/;

/** Clean outline: headings present, none empty, no level skipped on the way down (h2 -> h4). */
export const semanticHeadings: Check<'page'> = {
  id: 'aiDiscovery.semantic-headings',
  pillar: 'aeo',
  dimension: 'aiDiscovery',
  profiles: PAGE_PROFILES,
  weight: WEIGHT.standard,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['marketing', 'development'],
  references: [REF.w3cHeadings, REF.headings],
  run({ page, derived }) {
    const $ = derived.html(page);
    const headings = derived
      .index(page)
      .all.filter((el) => HEADING.test(el.tagName))
      .map((el) => ({ level: Number(el.tagName.slice(1)), text: $.text([el]).replace(/\s+/g, ' ').trim() }));
    const problems: string[] = [];
    if (headings.length === 0) problems.push('no headings at all');
    const empty = headings.filter((h) => h.text === '');
    if (empty.length) problems.push(`${empty.length} empty heading(s)`);
    let prev = 0;
    for (const h of headings) {
      if (prev > 0 && h.level > prev + 1) problems.push(`h${prev} followed by h${h.level} "${h.text.slice(0, 40)}"`);
      prev = h.level;
    }
    const outline = headings.slice(0, 8).map((h) => `h${h.level}`).join(' > ');
    if (problems.length === 0) return pass(`Heading outline: ${outline}${headings.length > 8 ? ' …' : ''}.`);
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      score: headings.length === 0 ? 0 : 0.5,
      title: 'Heading structure is not clean',
      evidence: `${problems.slice(0, 4).join('; ')}${outline ? ` (outline: ${outline})` : ''}.`,
      impact: 'Answer engines and screen readers use headings to split a page into passages; a broken outline hides what each section is about.',
      businessImpact: 'Passages are quoted less often and out of context.',
      recommendation: 'Structure content with one h1 and nested h2-h6 without skipping levels; use CSS, not heading tags, for visual size.',
    });
  },
};
