import { ALL_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { byName } from '../dom.js';

/** Lighthouse meta-description: present and not empty. */
export const metaDescription: Check<'page'> = {
  id: 'seo.meta-description',
  pillar: 'readiness',
  dimension: 'seo',
  profiles: ALL_PROFILES,
  weight: WEIGHT.standard,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['marketing', 'development'],
  references: [REF.lhDescription, REF.gscSnippet],
  run({ page, derived }) {
    const meta = byName(derived.tag(page, 'meta'), 'name', 'description');
    const content = (meta?.attribs['content'] ?? '').trim();
    if (content) return pass(`<meta name="description" content="${content.slice(0, 160)}"> (${content.length} characters).`);
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      title: 'Meta description missing',
      evidence: meta ? '<meta name="description"> is present but empty.' : 'No <meta name="description"> in the document.',
      impact: 'Search and answer engines pick an arbitrary passage as the page summary.',
      businessImpact: 'Less control over how the page is presented in results, and fewer clicks.',
      recommendation: 'Add a unique <meta name="description"> summarising the page in one or two sentences.',
    });
  },
};
