import { fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { jsonObject } from '../../parse/json-body.js';

/** An OpenAPI (or Swagger 2) document at a conventional address. Needed by APIs only. */
export const openapiDiscovery: Check<'openapi'> = {
  id: 'agentReadiness.openapi-discovery',
  pillar: 'auditAgentic',
  dimension: 'agentReadiness',
  profiles: ['api'],
  weight: WEIGHT.major,
  needs: ['openapi'],
  version: 1,
  audience: ['development'],
  references: [REF.openapi, REF.rfc9727],
  run({ openapi: probe }) {
    const doc = jsonObject(probe);
    const version = doc?.['openapi'] ?? doc?.['swagger'];
    if (doc && typeof version === 'string') {
      const paths = doc['paths'] && typeof doc['paths'] === 'object' ? Object.keys(doc['paths']).length : 0;
      return pass(`${probe.url}: OpenAPI ${version}, ${paths} path(s).`);
    }
    return fail({
      severity: 'Medium',
      effort: 'Médio',
      title: 'No discoverable OpenAPI description',
      evidence: probe.status === 200 ? `${probe.url} answered 200 without an "openapi" or "swagger" version field.` : `${probe.url} answered ${probe.status}.`,
      impact: 'Agents and SDK generators cannot learn the API’s operations and schemas.',
      businessImpact: 'Slower partner integrations; AI agents cannot call the API reliably.',
      recommendation: 'Publish the OpenAPI document at /openapi.json (or /.well-known/openapi.json) and link it from the api-catalog.',
    });
  },
};
