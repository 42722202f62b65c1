import { PAGE_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

const REQUIRED = ['og:title', 'og:type', 'og:image', 'og:url'];

/** The four required Open Graph properties (ogp.me), which shape previews in social apps and chat agents. */
export const openGraph: Check<'page'> = {
  id: 'seo.open-graph',
  pillar: 'aeo',
  dimension: 'seo',
  profiles: PAGE_PROFILES,
  weight: WEIGHT.minor,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['marketing'],
  references: [REF.ogp],
  run({ page, derived }) {
    const found = new Map<string, string>();
    for (const el of derived.tag(page, 'meta')) {
      const prop = (el.attribs['property'] ?? '').toLowerCase();
      if (prop.startsWith('og:') && !found.has(prop)) found.set(prop, el.attribs['content'] ?? '');
    }
    const missing = REQUIRED.filter((p) => !found.get(p));
    if (missing.length === 0) return pass(REQUIRED.map((p) => `${p}="${found.get(p)}"`).join(', '));
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      score: (REQUIRED.length - missing.length) / REQUIRED.length,
      title: 'Open Graph metadata incomplete',
      evidence: `Missing: ${missing.join(', ')}${found.size ? `; present: ${[...found.keys()].join(', ')}` : ''}.`,
      impact: 'Links shared in social networks and messaging apps show a bare URL or a random image.',
      businessImpact: 'Shared links draw fewer clicks and look less trustworthy.',
      recommendation: 'Add <meta property="og:title">, og:type, og:image (absolute URL, ~1200x630) and og:url to each page.',
    });
  },
};
