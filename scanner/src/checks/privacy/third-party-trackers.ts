import { ALL_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { INLINE_TRACKERS, TRACKERS } from './trackers.js';

/** Beyond this many trackers the finding is Medium: each one is a separate data recipient to declare and manage. */
const MANY = 3;

export const thirdPartyTrackers: Check<'page'> = {
  id: 'privacy.third-party-trackers',
  pillar: 'securityGovernance',
  dimension: 'privacy',
  profiles: ALL_PROFILES,
  weight: WEIGHT.major,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['executive', 'marketing', 'security'],
  references: [REF.mdnPrivacy, REF.lgpd, REF.owaspPrivacy],
  run({ page, derived }) {
    const $ = derived.html(page);
    const found = new Map<string, string>();
    for (const el of [...derived.tag(page, 'script'), ...derived.tag(page, 'img'), ...derived.tag(page, 'iframe')]) {
      const src = el.attribs['src'];
      // Relative addresses are the page's own origin: no URL parse needed (pages carry hundreds of images).
      if (src === undefined || !/^\s*(https?:)?\/\//i.test(src)) continue;
      let host: string;
      try {
        host = new URL(src, page.finalUrl).hostname.toLowerCase();
      } catch {
        continue;
      }
      const hit = TRACKERS.find(([re]) => re.test(host));
      if (hit && !found.has(hit[1])) found.set(hit[1], `<${el.tagName} src="${src.slice(0, 100)}">`);
    }
    for (const el of derived.tag(page, 'script').filter((s) => s.attribs['src'] === undefined)) {
      const code = $.text([el]);
      for (const [re, name] of INLINE_TRACKERS) if (!found.has(name) && re.test(code)) found.set(name, `inline script matching ${re.source}`);
    }
    if (found.size === 0) return pass('No known third-party trackers referenced in the HTML.');
    const many = found.size > MANY;
    return fail({
      severity: many ? 'Medium' : 'Low',
      effort: 'Médio',
      score: many ? 0.3 : 0.7,
      title: `${found.size} third-party tracker(s) load with the page`,
      evidence: [...found].map(([name, where]) => `${name}: ${where}`).join('; '),
      impact: 'Visitors’ browsing data goes to third parties on page load, before any choice, unless a consent tool gates these scripts.',
      businessImpact: 'Tracking without a legal basis breaches the LGPD / GDPR and erodes trust; each tracker is also a supply-chain risk.',
      recommendation: 'Load trackers only after consent (a consent manager), drop the ones not used, and list every recipient in the privacy policy.',
    });
  },
};
