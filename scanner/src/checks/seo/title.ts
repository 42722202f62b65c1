import { ALL_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Lighthouse document-title: a non-empty <title>. Length outside 10-60 characters is only a partial miss. */
export const title: Check<'page'> = {
  id: 'seo.title',
  pillar: 'readiness',
  dimension: 'seo',
  profiles: ALL_PROFILES,
  weight: WEIGHT.major,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['marketing', 'development'],
  references: [REF.lhTitle, REF.gscTitle],
  run({ page, derived }) {
    const el = derived.tag(page, 'title')[0];
    const text = el ? derived.html(page)(el).text().replace(/\s+/g, ' ').trim() : '';
    const common = {
      effort: 'Baixo' as const,
      impact: 'The title is the headline of the result in search engines and answer engines, and the tab name.',
      businessImpact: 'A missing or poor title lowers click-through from search and makes the page harder to cite.',
      recommendation: 'Give each page a unique, descriptive <title> of about 10-60 characters that names the page and the brand.',
    };
    if (!text) return fail({ ...common, severity: 'Medium', title: 'Page has no title', evidence: 'No non-empty <title> element in the document.' });
    if (text.length < 10 || text.length > 60) {
      return fail({
        ...common,
        severity: 'Low',
        score: 0.7,
        title: text.length < 10 ? 'Page title is very short' : 'Page title is long and may be truncated',
        evidence: `<title>${text}</title> (${text.length} characters).`,
      });
    }
    return pass(`<title>${text}</title> (${text.length} characters).`);
  },
};
