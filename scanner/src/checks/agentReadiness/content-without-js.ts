import { PAGE_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Below this much visible text, the HTML is an application shell that needs JavaScript to show anything. */
const MIN_TEXT_CHARS = 200;

/** Most AI crawlers and agents do not run JavaScript: the content must be in the HTML. */
export const contentWithoutJs: Check<'page'> = {
  id: 'agentReadiness.content-without-js',
  pillar: 'auditAgentic',
  dimension: 'agentReadiness',
  profiles: PAGE_PROFILES,
  weight: WEIGHT.major,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['executive', 'development'],
  references: [REF.jsSeo],
  run({ page, derived }) {
    const text = derived.visibleText(page);
    const scripts = derived.tag(page, 'script').length;
    if (text.length >= MIN_TEXT_CHARS) return pass(`${text.length} characters of text in the HTML without JavaScript: "${text.slice(0, 80)}…".`);
    return fail({
      severity: 'High',
      effort: 'Médio',
      title: 'Content is not present without JavaScript',
      evidence: `Only ${text.length} characters of visible text in the served HTML${text ? ` ("${text.slice(0, 80)}")` : ''}, with ${scripts} <script> element(s).`,
      impact: 'AI crawlers, answer engines and most agents read the HTML as served; they see an empty page.',
      businessImpact: 'The site is invisible to AI assistants and slower to be indexed by search engines.',
      recommendation: 'Render the main content on the server (SSR or static generation) so it is in the HTML response.',
    });
  },
};
