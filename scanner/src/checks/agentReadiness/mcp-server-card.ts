import { fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { jsonObject } from '../../parse/json-body.js';

/** An MCP server card at /.well-known/mcp.json: lets agents find the site's MCP endpoint. Needed by APIs only. */
export const mcpServerCard: Check<'mcpServerCard'> = {
  id: 'agentReadiness.mcp-server-card',
  pillar: 'auditAgentic',
  dimension: 'agentReadiness',
  profiles: ['api'],
  weight: WEIGHT.minor,
  needs: ['mcpServerCard'],
  version: 1,
  audience: ['development'],
  references: [REF.mcp],
  run({ mcpServerCard: probe }) {
    const card = jsonObject(probe);
    if (card && (typeof card['name'] === 'string' || typeof card['serverInfo'] === 'object' || typeof card['endpoint'] === 'string' || typeof card['url'] === 'string')) {
      const name = typeof card['name'] === 'string' ? card['name'] : JSON.stringify(card['serverInfo'] ?? card['endpoint'] ?? card['url']);
      return pass(`${probe.url}: MCP server card for ${name.slice(0, 100)}.`);
    }
    return fail({
      severity: 'Low',
      effort: 'Médio',
      title: 'No MCP server card',
      evidence: probe.status === 200 ? `${probe.url} answered 200 (${probe.contentType}) but not with a server card.` : `${probe.url} answered ${probe.status}.`,
      impact: 'AI agents that speak the Model Context Protocol cannot discover a tool endpoint for this service.',
      businessImpact: 'The service is harder to use from AI assistants and agent platforms.',
      recommendation: 'If the service offers an MCP server, describe it (name, endpoint, transport) at /.well-known/mcp.json.',
    });
  },
};
