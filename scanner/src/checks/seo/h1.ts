import { ALL_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

export const h1: Check<'page'> = {
  id: 'seo.h1',
  pillar: 'readiness',
  dimension: 'seo',
  profiles: ALL_PROFILES,
  weight: WEIGHT.standard,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['marketing', 'development'],
  references: [REF.headings, REF.w3cHeadings],
  run({ page, derived }) {
    const $ = derived.html(page);
    const texts = derived.tag(page, 'h1').map((el) => $.text([el]).replace(/\s+/g, ' ').trim());
    const nonEmpty = texts.filter(Boolean);
    if (nonEmpty.length === 1 && texts.length === 1) return pass(`One <h1>: "${nonEmpty[0]}".`);
    const none = nonEmpty.length === 0;
    return fail({
      severity: none ? 'Medium' : 'Low',
      effort: 'Baixo',
      score: none ? 0 : 0.6,
      title: none ? 'Page has no main heading (h1)' : 'Page has several h1 headings',
      evidence: none ? `${texts.length} <h1> element(s), none with text.` : `${texts.length} <h1> elements: ${texts.slice(0, 5).map((t) => `"${t}"`).join(', ')}.`,
      impact: 'The h1 tells readers, screen readers and engines what the page is about; several or none blur the topic.',
      businessImpact: 'A weaker topical signal for search and for answer engines quoting the page.',
      recommendation: 'Use exactly one <h1> that states the page’s main topic, and h2-h6 for sections.',
    });
  },
};
