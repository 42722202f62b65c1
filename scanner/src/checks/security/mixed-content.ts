import { ALL_PROFILES, fail, notApplicable, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { hasToken } from '../dom.js';

/** Elements whose http:// URL browsers block on an HTTPS page (active) or load with a warning (passive). */
const ACTIVE = [['script', 'src'], ['link', 'href'], ['iframe', 'src'], ['object', 'data'], ['embed', 'src']] as const;
const PASSIVE = [['img', 'src'], ['audio', 'src'], ['video', 'src'], ['source', 'src']] as const;

export const mixedContent: Check<'page'> = {
  id: 'security.mixed-content',
  pillar: 'securityGovernance',
  dimension: 'security',
  profiles: ALL_PROFILES,
  weight: WEIGHT.major,
  needs: ['page'],
  version: 1,
  audience: ['development', 'security'],
  references: [REF.mixedContent, REF.owaspTls],
  run({ page, derived }) {
    if (!page.finalUrl.startsWith('https://')) return notApplicable('Page is not served over HTTPS.');
    const insecure = (tags: readonly (readonly [string, string])[]): string[] =>
      tags.flatMap(([tag, attribute]) =>
        derived
          .tag(page, tag)
          .filter((el) => /^\s*http:\/\//i.test(el.attribs[attribute] ?? '') && (tag !== 'link' || hasToken(el, 'rel', 'stylesheet')))
          .map((el) => `<${tag} ${el.attribs[attribute] ?? ''}>`),
      );
    const active = insecure(ACTIVE);
    const passive = insecure(PASSIVE);
    if (active.length === 0 && passive.length === 0) return pass('No http:// subresources referenced by the HTTPS page.');
    return fail({
      severity: active.length > 0 ? 'High' : 'Low',
      effort: 'Baixo',
      score: active.length > 0 ? 0 : 0.6,
      title: active.length > 0 ? 'HTTPS page loads scripts or styles over HTTP' : 'HTTPS page loads media over HTTP',
      evidence: `Insecure subresources: ${[...active, ...passive].slice(0, 5).join(', ')}${active.length + passive.length > 5 ? ` and ${active.length + passive.length - 5} more` : ''}.`,
      impact: 'Browsers block active mixed content (the page breaks) and flag passive content; anything over HTTP can be altered in transit.',
      businessImpact: 'Broken pages and lost padlock icon erode trust and conversion.',
      recommendation: 'Reference every subresource over https:// (or protocol-relative to the page), and add "upgrade-insecure-requests" to the CSP.',
    });
  },
};
