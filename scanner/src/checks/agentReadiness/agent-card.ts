import { fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { jsonObject } from '../../parse/json-body.js';

/** An A2A Agent Card at /.well-known/agent-card.json (name, url, skills). Needed by APIs only. */
export const agentCard: Check<'agentCard'> = {
  id: 'agentReadiness.agent-card',
  pillar: 'auditAgentic',
  dimension: 'agentReadiness',
  profiles: ['api'],
  weight: WEIGHT.minor,
  needs: ['agentCard'],
  version: 1,
  audience: ['development'],
  references: [REF.a2a],
  run({ agentCard: probe }) {
    const card = jsonObject(probe);
    if (card && typeof card['name'] === 'string' && typeof card['url'] === 'string') {
      const skills = Array.isArray(card['skills']) ? card['skills'].length : 0;
      return pass(`${probe.url}: agent "${card['name']}" at ${card['url']} with ${skills} skill(s).`);
    }
    return fail({
      severity: 'Low',
      effort: 'Médio',
      title: 'No A2A agent card',
      evidence: probe.status === 200 ? `${probe.url} answered 200 without "name" and "url".` : `${probe.url} answered ${probe.status}.`,
      impact: 'Other agents cannot discover an agent interface (Agent2Agent protocol) for this service.',
      businessImpact: 'Missed integrations with agent ecosystems.',
      recommendation: 'If the service exposes an agent, publish its Agent Card (name, description, url, skills) at /.well-known/agent-card.json.',
    });
  },
};
