import { ALL_PROFILES, fail, notApplicable, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Third-party scripts should carry Subresource Integrity (Observatory's subresource-integrity test). */
export const sri: Check<'page'> = {
  id: 'security.sri',
  pillar: 'securityGovernance',
  dimension: 'security',
  profiles: ALL_PROFILES,
  weight: WEIGHT.standard,
  needs: ['page'],
  version: 1,
  audience: ['development', 'security'],
  references: [REF.sri, REF.observatory],
  run({ page, derived }) {
    let origin: string;
    try {
      origin = new URL(page.finalUrl).origin;
    } catch {
      return notApplicable('Final URL cannot be parsed.');
    }
    const external = derived
      .tag(page, 'script')
      .filter((el) => el.attribs['src'] !== undefined)
      .map((el) => ({ src: el.attribs['src'] ?? '', integrity: el.attribs['integrity'] }))
      .filter(({ src }) => {
        try {
          return new URL(src, page.finalUrl).origin !== origin;
        } catch {
          return false;
        }
      });
    if (external.length === 0) return notApplicable('No third-party scripts on the page.');
    const missing = external.filter((s) => !s.integrity);
    if (missing.length === 0) return pass(`All ${external.length} third-party script(s) carry an integrity attribute.`);
    return fail({
      severity: 'Low',
      effort: 'Médio',
      score: 1 - missing.length / external.length,
      title: 'Third-party scripts loaded without Subresource Integrity',
      evidence: `${missing.length} of ${external.length} third-party script(s) without integrity: ${missing.slice(0, 5).map((s) => `<script src="${s.src}">`).join(', ')}.`,
      impact: 'If the third party or its CDN is compromised, altered code runs with full access to this page.',
      businessImpact: 'Supply-chain attacks (e.g. card skimmers) run on the site without any change to its own code.',
      recommendation: 'Add integrity="sha384-…" and crossorigin="anonymous" to versioned third-party scripts, or self-host them.',
    });
  },
};
