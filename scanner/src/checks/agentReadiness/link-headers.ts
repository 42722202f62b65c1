import { ALL_PROFILES, fail, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Link relations an agent can follow from any response without parsing HTML (RFC 8288). */
const USEFUL = ['api-catalog', 'service-desc', 'service-doc', 'describedby', 'alternate', 'sitemap', 'canonical', 'author', 'license'];

export const linkHeaders: Check<'page'> = {
  id: 'agentReadiness.link-headers',
  pillar: 'auditAgentic',
  dimension: 'agentReadiness',
  profiles: ALL_PROFILES,
  weight: WEIGHT.minor,
  needs: ['page'],
  version: 1,
  audience: ['development'],
  references: [REF.rfc8288, REF.mdnLink, REF.rfc9727],
  run({ page }) {
    const link = page.headers['link'] ?? '';
    const rels = [...link.matchAll(/rel\s*=\s*"?([^";,]+)"?/gi)].flatMap((m) => (m[1] ?? '').toLowerCase().split(/\s+/));
    const useful = [...new Set(rels.filter((r) => USEFUL.includes(r)))];
    if (useful.length > 0) return pass(`Link: ${quote(link)} (rel ${useful.join(', ')}).`);
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      title: 'No Link headers for agents',
      evidence: link ? `Link: ${quote(link)} has none of rel ${USEFUL.join(', ')}.` : 'No Link response header.',
      impact: 'Agents must parse HTML to find the API description, alternate formats or the sitemap.',
      businessImpact: 'Harder for automated clients and AI agents to integrate with the site.',
      recommendation: 'Advertise machine-readable resources in a Link header, e.g. Link: </.well-known/api-catalog>; rel="api-catalog", </llms.txt>; rel="alternate"; type="text/markdown".',
    });
  },
};
