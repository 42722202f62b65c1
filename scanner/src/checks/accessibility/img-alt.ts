import { PAGE_PROFILES, fail, notApplicable, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** axe image-alt: every <img> has alt (alt="" marks decoration), or an ARIA name, or role=presentation/none. */
export const imgAlt: Check<'page'> = {
  id: 'accessibility.img-alt',
  pillar: 'readiness',
  dimension: 'accessibility',
  profiles: PAGE_PROFILES,
  weight: WEIGHT.major,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['marketing', 'development'],
  references: [REF.wcagNonText, REF.w3cImages],
  run({ page, derived }) {
    const imgs = derived.tag(page, 'img');
    if (imgs.length === 0) return notApplicable('No <img> elements.');
    const missing = imgs.filter((el) => {
      const a = el.attribs;
      return a['alt'] === undefined && !a['aria-label'] && !a['aria-labelledby'] && !/^(presentation|none)$/i.test(a['role'] ?? '');
    });
    if (missing.length === 0) return pass(`All ${imgs.length} image(s) have alt text or are marked decorative.`);
    return fail({
      severity: missing.length / imgs.length > 0.5 ? 'Medium' : 'Low',
      effort: 'Baixo',
      score: 1 - missing.length / imgs.length,
      title: 'Images without alternative text',
      evidence: `${missing.length} of ${imgs.length} <img> without alt: ${missing.slice(0, 3).map((el) => `<img src="${el.attribs['src'] ?? ''}">`).join(', ')}.`,
      impact: 'Screen-reader users hear the file name or nothing; engines and agents cannot tell what the image shows.',
      businessImpact: 'Excludes visually impaired customers (a legal exposure under accessibility laws) and loses image search.',
      recommendation: 'Add alt text describing each informative image; use alt="" for purely decorative ones.',
    });
  },
};
