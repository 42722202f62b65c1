import { PAGE_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { byName } from '../dom.js';

/**
 * Lighthouse viewport + axe meta-viewport: a responsive viewport is declared, and zoom is not disabled
 * (user-scalable=no, or maximum-scale below 5, as axe counts it).
 */
export const viewport: Check<'page'> = {
  id: 'accessibility.viewport',
  pillar: 'readiness',
  dimension: 'accessibility',
  profiles: PAGE_PROFILES,
  weight: WEIGHT.standard,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['development'],
  references: [REF.wcagResize, REF.mdnViewport],
  run({ page, derived }) {
    const content = byName(derived.tag(page, 'meta'), 'name', 'viewport')?.attribs['content'];
    if (content === undefined) {
      return fail({
        severity: 'Medium',
        effort: 'Baixo',
        title: 'No viewport meta tag',
        evidence: 'No <meta name="viewport"> in the document.',
        impact: 'Mobile browsers render the page at desktop width, with tiny text.',
        businessImpact: 'Poor mobile experience; Google indexes the mobile version of pages first.',
        recommendation: 'Add <meta name="viewport" content="width=device-width, initial-scale=1">.',
      });
    }
    const params = new Map(
      content.split(/[,;]/).map((p) => {
        const [k = '', v = ''] = p.split('=');
        return [k.trim().toLowerCase(), v.trim().toLowerCase()] as const;
      }),
    );
    const scalable = params.get('user-scalable');
    const maxScale = Number(params.get('maximum-scale') ?? 'NaN');
    if (scalable === 'no' || scalable === '0' || (!Number.isNaN(maxScale) && maxScale < 5)) {
      return fail({
        severity: 'Medium',
        effort: 'Baixo',
        title: 'Zooming is disabled',
        evidence: `<meta name="viewport" content="${content}">.`,
        impact: 'People with low vision cannot enlarge text (WCAG 1.4.4).',
        businessImpact: 'Excludes low-vision users; an accessibility compliance failure.',
        recommendation: 'Remove user-scalable=no and any maximum-scale below 5 from the viewport meta tag.',
      });
    }
    return pass(`<meta name="viewport" content="${content}">.`);
  },
};
