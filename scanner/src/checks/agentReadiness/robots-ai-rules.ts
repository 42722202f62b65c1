import { ALL_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { namesAgent } from '../../parse/robots-txt.js';
import { ANSWER_BOTS, TRAINING_BOTS } from '../aiDiscovery/ai-crawlers.js';

/** robots.txt states an explicit policy for AI agents: at least one AI user agent named in a group of its own. */
export const robotsAiRules: Check<'robotsTxt'> = {
  id: 'agentReadiness.robots-ai-rules',
  pillar: 'auditAgentic',
  dimension: 'agentReadiness',
  profiles: ALL_PROFILES,
  weight: WEIGHT.standard,
  needs: ['robotsTxt'],
  version: 1,
  audience: ['executive', 'marketing', 'development'],
  references: [REF.rfc9309, REF.openaiBots, REF.googleCrawlers],
  run({ robotsTxt, derived }) {
    const robots = derived.robots(robotsTxt);
    const named = [...ANSWER_BOTS, ...TRAINING_BOTS].filter((bot) => namesAgent(robots, bot));
    if (named.length > 0) return pass(`robots.txt names AI agents explicitly: ${named.join(', ')}.`);
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      title: 'No explicit rules for AI agents in robots.txt',
      evidence: robotsTxt.status === 200 ? `robots.txt has ${robots.groups.length} group(s), none naming an AI user agent (${[...ANSWER_BOTS.slice(0, 2), ...TRAINING_BOTS.slice(0, 2)].join(', ')}…).` : `${robotsTxt.url} answered ${robotsTxt.status}.`,
      impact: 'AI crawlers fall back to the generic "*" rules, so the site’s stance on AI search and training is left implicit.',
      businessImpact: 'No deliberate choice about being cited by AI assistants or used for model training.',
      recommendation: 'Add explicit groups, e.g. "User-agent: OAI-SearchBot / Allow: /" and "User-agent: GPTBot / Disallow: /" as the business decides.',
    });
  },
};
