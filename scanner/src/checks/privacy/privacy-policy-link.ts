import { PAGE_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Link text or address of a privacy notice, in the languages the product serves first. */
const PRIVACY = /privacy|privacidade|privacidad|datenschutz|confidentialit|lgpd|gdpr|dados pessoais/i;

export const privacyPolicyLink: Check<'page'> = {
  id: 'privacy.privacy-policy-link',
  pillar: 'securityGovernance',
  dimension: 'privacy',
  profiles: PAGE_PROFILES,
  weight: WEIGHT.major,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['executive', 'marketing'],
  references: [REF.lgpd, REF.mdnPrivacy],
  run({ page, derived }) {
    const $ = derived.html(page);
    const anchors = derived.tag(page, 'a').filter((el) => el.attribs['href'] !== undefined);
    // The address first: it is free to test, the text needs a tree walk.
    const link = anchors.find((el) => PRIVACY.test(el.attribs['href'] ?? '')) ?? anchors.find((el) => PRIVACY.test($.text([el])));
    if (link) return pass(`Privacy link: <a href="${link.attribs['href'] ?? ''}">${$.text([link]).trim().slice(0, 60)}</a>.`);
    return fail({
      severity: 'Medium',
      effort: 'Baixo',
      title: 'No link to a privacy policy',
      evidence: `None of the page’s ${anchors.length} link(s) mentions privacy (privacidade, LGPD, GDPR…).`,
      impact: 'Visitors cannot find out what personal data is collected, why, and how to exercise their rights.',
      businessImpact: 'The LGPD (art. 9) and GDPR require this information to be easily accessible; its absence invites complaints and fines.',
      recommendation: 'Link the privacy policy from every page (usually the footer), in the visitors’ language.',
    });
  },
};
