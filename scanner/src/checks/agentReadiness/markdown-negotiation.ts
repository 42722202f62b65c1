import { PAGE_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** The page answers `Accept: text/markdown` with Markdown: the cheapest form for a language model to read. */
export const markdownNegotiation: Check<'markdownNegotiation'> = {
  id: 'agentReadiness.markdown-negotiation',
  pillar: 'auditAgentic',
  dimension: 'agentReadiness',
  profiles: PAGE_PROFILES,
  weight: WEIGHT.minor,
  needs: ['markdownNegotiation'],
  version: 1,
  audience: ['development'],
  references: [REF.contentNegotiation, REF.llmsTxt],
  run({ markdownNegotiation: probe }) {
    if (probe.status === 200 && probe.contentType === 'text/markdown' && probe.body.trim() !== '') {
      return pass(`${probe.url} with Accept: text/markdown answered 200 text/markdown (${probe.bodyBytes} bytes).`);
    }
    return fail({
      severity: 'Low',
      effort: 'Médio',
      title: 'No Markdown version on request',
      evidence: `${probe.url} with Accept: text/markdown answered ${probe.status} ${probe.contentType || '(no content type)'}.`,
      impact: 'Agents must strip navigation, scripts and markup from the HTML, losing structure and spending tokens.',
      businessImpact: 'AI assistants read the content less accurately and at higher cost.',
      recommendation: 'Serve a Markdown rendering of each page when the request prefers text/markdown (Vary: Accept).',
    });
  },
};
