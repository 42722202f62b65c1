import { ALL_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { isAllowed } from '../../parse/robots-txt.js';

/**
 * AI crawlers by purpose. Blocking training crawlers is a legitimate business choice and is only reported; blocking
 * the crawlers that fetch pages to answer users' questions removes the site from AI answers, and is scored.
 */
export const ANSWER_BOTS = ['OAI-SearchBot', 'ChatGPT-User', 'Claude-SearchBot', 'Claude-User', 'PerplexityBot', 'Perplexity-User'];
export const TRAINING_BOTS = ['GPTBot', 'ClaudeBot', 'Google-Extended', 'Applebot-Extended', 'CCBot', 'Bytespider', 'Meta-ExternalAgent', 'Amazonbot'];

export const aiCrawlers: Check<'page' | 'robotsTxt'> = {
  id: 'aiDiscovery.ai-crawlers',
  pillar: 'aeo',
  dimension: 'aiDiscovery',
  profiles: ALL_PROFILES,
  weight: WEIGHT.major,
  needs: ['page', 'robotsTxt'],
  version: 1,
  audience: ['executive', 'marketing'],
  references: [REF.openaiBots, REF.googleCrawlers, REF.rfc9309],
  run({ page, robotsTxt, derived }) {
    const robots = derived.robots(robotsTxt);
    const url = new URL(page.finalUrl);
    const path = url.pathname + url.search;
    const verdict = (bot: string): string => `${bot}: ${isAllowed(robots, bot, path) ? 'allowed' : 'blocked'}`;
    const answer = ANSWER_BOTS.map(verdict);
    const training = TRAINING_BOTS.map(verdict);
    const blockedAnswer = answer.filter((v) => v.endsWith('blocked'));
    const evidence = `robots.txt (${robotsTxt.status}) for ${path}: answer engines [${answer.join(', ')}]; training [${training.join(', ')}].`;
    if (blockedAnswer.length === 0) return pass(evidence);
    return fail({
      severity: 'Medium',
      effort: 'Baixo',
      score: 1 - blockedAnswer.length / ANSWER_BOTS.length,
      title: 'robots.txt blocks AI answer-engine crawlers',
      evidence,
      impact: 'Assistants such as ChatGPT search, Claude and Perplexity cannot fetch the page to cite it in answers.',
      businessImpact: 'The site disappears from a growing channel of discovery and referrals.',
      recommendation: 'Allow the answer-engine user agents (OAI-SearchBot, ChatGPT-User, Claude-SearchBot, Claude-User, PerplexityBot) in robots.txt; training crawlers (GPTBot, ClaudeBot, Google-Extended, CCBot) can still be blocked separately.',
    });
  },
};
