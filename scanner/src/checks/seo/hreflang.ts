import { ALL_PROFILES, fail, info, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { hasToken } from '../dom.js';

/** BCP 47 language (and optional script/region), or x-default, as Google and Lighthouse accept them. */
const HREFLANG = /^(x-default|[a-z]{2,3}(-[a-z]{4})?(-([a-z]{2}|\d{3}))?)$/i;

/**
 * Lighthouse hreflang: declared alternates must use valid language codes and absolute URLs. Absent hreflang is only
 * Informational: a one-language site does not need it (docs/decisions.md).
 */
export const hreflang: Check<'page'> = {
  id: 'seo.hreflang',
  pillar: 'readiness',
  dimension: 'seo',
  profiles: ALL_PROFILES,
  weight: WEIGHT.minor,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['marketing', 'development'],
  references: [REF.lhHreflang, REF.gscHreflang],
  run({ page, derived }) {
    const links = derived
      .tag(page, 'link')
      .filter((el) => el.attribs['hreflang'] !== undefined && hasToken(el, 'rel', 'alternate'))
      .map((el) => ({ lang: (el.attribs['hreflang'] ?? '').trim(), href: (el.attribs['href'] ?? '').trim() }));
    const text = {
      effort: 'Médio' as const,
      impact: 'hreflang tells engines which language or regional version of a page to show to which audience.',
      businessImpact: 'Without it, visitors may land on the wrong language version of a multilingual site.',
      recommendation: 'On multilingual sites, list every language version with <link rel="alternate" hreflang="pt-BR" href="https://…">, plus x-default.',
    };
    if (links.length === 0) {
      return info({ ...text, title: 'No hreflang alternates (only needed on multilingual sites)', evidence: 'No <link rel="alternate" hreflang> in the document.' });
    }
    const bad = links.filter((l) => !HREFLANG.test(l.lang) || !/^https?:\/\//i.test(l.href));
    if (bad.length === 0) return pass(`${links.length} hreflang alternate(s): ${links.map((l) => l.lang).join(', ')}.`);
    return fail({
      ...text,
      severity: 'Low',
      score: 0.3,
      title: 'Invalid hreflang alternates',
      evidence: `Invalid: ${bad.slice(0, 5).map((l) => `hreflang="${l.lang}" href="${l.href}"`).join('; ')} (codes must be BCP 47, hrefs absolute).`,
    });
  },
};
