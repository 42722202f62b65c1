import { fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { jsonObject } from '../../parse/json-body.js';

/** RFC 9727: /.well-known/api-catalog answers a linkset (application/linkset+json) listing the APIs. Needed by APIs only. */
export const apiCatalog: Check<'apiCatalog'> = {
  id: 'agentReadiness.api-catalog',
  pillar: 'auditAgentic',
  dimension: 'agentReadiness',
  profiles: ['api'],
  weight: WEIGHT.standard,
  needs: ['apiCatalog'],
  version: 1,
  audience: ['development'],
  references: [REF.rfc9727, REF.rfc8288],
  run({ apiCatalog: probe }) {
    const doc = jsonObject(probe);
    const linkset = doc?.['linkset'];
    if (Array.isArray(linkset) && linkset.length > 0) return pass(`${probe.url}: ${probe.contentType}, linkset with ${linkset.length} entr${linkset.length === 1 ? 'y' : 'ies'}.`);
    return fail({
      severity: 'Low',
      effort: 'Médio',
      title: 'No API catalog (RFC 9727)',
      evidence: probe.status === 200 ? `${probe.url} answered 200 (${probe.contentType}) without a "linkset" array.` : `${probe.url} answered ${probe.status}.`,
      impact: 'Agents and developers cannot discover the site’s APIs from a well-known address.',
      businessImpact: 'Integrations take longer; AI agents may not find the API at all.',
      recommendation: 'Serve /.well-known/api-catalog as application/linkset+json with a linkset entry per API (service-desc to its OpenAPI, service-doc to its docs).',
    });
  },
};
