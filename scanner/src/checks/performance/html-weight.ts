import { ALL_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Decoded HTML size: the document alone, before any subresource. */
const GOOD_BYTES = 150 * 1024;
const POOR_BYTES = 500 * 1024;

export const htmlWeight: Check<'page'> = {
  id: 'performance.html-weight',
  pillar: 'readiness',
  dimension: 'performance',
  profiles: ALL_PROFILES,
  weight: WEIGHT.standard,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['development'],
  references: [REF.lhByteWeight],
  run({ page }) {
    const kb = Math.round(page.bodyBytes / 1024);
    const wire = Math.round(page.wireBytes / 1024);
    if (page.bodyBytes <= GOOD_BYTES && !page.truncated) return pass(`HTML document ${kb} KiB decoded (${wire} KiB on the wire).`);
    const poor = page.bodyBytes > POOR_BYTES || page.truncated;
    return fail({
      severity: poor ? 'Medium' : 'Low',
      effort: 'Médio',
      score: poor ? 0 : 0.5,
      title: 'HTML document is heavy',
      evidence: `HTML document ${kb} KiB decoded${page.truncated ? ' (cut at the size cap)' : ''}, ${wire} KiB on the wire (good: <= ${GOOD_BYTES / 1024} KiB).`,
      impact: 'Large documents take longer to download and parse, especially on mobile networks; inline data bloats every visit.',
      businessImpact: 'Slower first render and higher bounce on mobile.',
      recommendation: 'Move inline scripts, styles and data (e.g. hydration state, SVG sprites) to cacheable files and paginate long lists.',
    });
  },
};
