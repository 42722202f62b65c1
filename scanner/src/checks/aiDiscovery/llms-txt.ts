import { ALL_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** /llms.txt is served as text (not an HTML error page dressed as 200). Its content is judged by agentReadiness.llms-txt-valid. */
export const llmsTxt: Check<'llmsTxt'> = {
  id: 'aiDiscovery.llms-txt',
  pillar: 'aeo',
  dimension: 'aiDiscovery',
  profiles: ALL_PROFILES,
  weight: WEIGHT.standard,
  needs: ['llmsTxt'],
  version: 1,
  audience: ['marketing', 'development'],
  references: [REF.llmsTxt],
  run({ llmsTxt: probe }) {
    if (probe.status === 200 && probe.body.trim() !== '' && !/^\s*</.test(probe.body)) {
      return pass(`${probe.url} answered 200 (${probe.contentType}, ${probe.bodyBytes} bytes).`);
    }
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      title: 'No llms.txt',
      evidence: probe.status === 200 ? `${probe.url} answered 200 but with ${probe.body.trim() ? 'HTML' : 'an empty body'}.` : `${probe.url} answered ${probe.status}.`,
      impact: 'Language models and agents get no curated, plain-text map of the site’s key content.',
      businessImpact: 'AI assistants summarise the site from whatever they happen to crawl, not from what the business chose.',
      recommendation: 'Publish /llms.txt in Markdown: an H1 with the site name, a one-line summary, and sections linking the key pages (llmstxt.org).',
    });
  },
};
