import { fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { jsonObject } from '../../parse/json-body.js';

/** RFC 9728 protected-resource metadata (names its authorization servers) or RFC 8414 server metadata. Needed by APIs only. */
export const oauthDiscovery: Check<'oauthProtectedResource' | 'oauthAuthorizationServer'> = {
  id: 'agentReadiness.oauth-discovery',
  pillar: 'auditAgentic',
  dimension: 'agentReadiness',
  profiles: ['api'],
  weight: WEIGHT.standard,
  needs: ['oauthProtectedResource', 'oauthAuthorizationServer'],
  version: 1,
  audience: ['development', 'security'],
  references: [REF.rfc9728, REF.rfc8414],
  run({ oauthProtectedResource: prm, oauthAuthorizationServer: asm }) {
    const resource = jsonObject(prm);
    const server = jsonObject(asm);
    const found: string[] = [];
    if (resource && typeof resource['resource'] === 'string') found.push(`${prm.url}: resource "${resource['resource']}"`);
    if (server && typeof server['issuer'] === 'string') found.push(`${asm.url}: issuer "${server['issuer']}"`);
    if (found.length > 0) return pass(`${found.join('; ')}.`);
    return fail({
      severity: 'Low',
      effort: 'Médio',
      title: 'No OAuth discovery metadata',
      evidence: `${prm.url} answered ${prm.status}; ${asm.url} answered ${asm.status} (no valid "resource" or "issuer" metadata).`,
      impact: 'Agents cannot find out how to obtain a token for the API without human help.',
      businessImpact: 'Agent and partner integrations need manual setup.',
      recommendation: 'Publish /.well-known/oauth-protected-resource (RFC 9728) naming the authorization server, which publishes /.well-known/oauth-authorization-server (RFC 8414).',
    });
  },
};
