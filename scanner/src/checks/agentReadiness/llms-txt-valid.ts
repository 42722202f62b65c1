import { ALL_PROFILES, fail, notApplicable, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Below this, an llms.txt is a placeholder rather than a guide. */
const MIN_CHARS = 100;

/** llms.txt as the proposal shapes it: an H1 title, at least one Markdown link, real content. */
export const llmsTxtValid: Check<'llmsTxt'> = {
  id: 'agentReadiness.llms-txt-valid',
  pillar: 'auditAgentic',
  dimension: 'agentReadiness',
  profiles: ALL_PROFILES,
  weight: WEIGHT.minor,
  needs: ['llmsTxt'],
  version: 1,
  audience: ['development', 'marketing'],
  references: [REF.llmsTxt],
  run({ llmsTxt: probe }) {
    const body = probe.body;
    if (probe.status !== 200 || body.trim() === '' || /^\s*</.test(body)) return notApplicable('No llms.txt served (see aiDiscovery.llms-txt).');
    const problems: string[] = [];
    const h1 = /^#\s+\S.*$/m.exec(body)?.[0];
    if (!h1) problems.push('no "# Title" H1 line');
    const links = (body.match(/\[[^\]]+\]\([^)\s]+\)/g) ?? []).length;
    if (links === 0) problems.push('no Markdown links');
    if (body.trim().length < MIN_CHARS) problems.push(`only ${body.trim().length} characters`);
    if (problems.length === 0) return pass(`${probe.url}: ${h1 ?? ''}; ${links} link(s); ${body.length} characters.`);
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      score: (3 - problems.length) / 3,
      title: 'llms.txt does not follow the format',
      evidence: `${probe.url}: ${problems.join('; ')}.`,
      impact: 'Agents that read llms.txt expect a title, a summary and links to the key pages.',
      businessImpact: 'The curated guide to the site is ignored or misread.',
      recommendation: 'Start llms.txt with "# Site name", a "> summary" line, then "## Section" lists of "[Page](https://…): note" links.',
    });
  },
};
