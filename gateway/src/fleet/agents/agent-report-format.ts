import { PACK_NAMES, type PackName } from '../../policy/packs.js';
import { MAX_METADATA_BYTES } from '../../agents/agent-requests.js';
import { GatewayError } from '../../errors.js';
import { assertValid, OwnSchema } from '../../platform/gateway-ajv.js';

/**
 * What a sidecar reports of its agents to the control plane (`POST /v1/fleet/agents`, docs/fleet.md, "Agents and
 * decisions"): per tenant, the agents seen since its last report, with their registration as the sidecar holds it
 * (used only when the control plane has none: a registration made there wins) and their activity. Times are Unix ms.
 */
export const AGENT_REPORT_FORMAT = 'aduana-agent-report/1';

export interface ReportedAgent {
  agent_id: string;
  name: string;
  policy_pack: PackName | null;
  risk_budget: number | null;
  metadata: Record<string, unknown> | null;
  created_at: number;
  last_seen: number;
  heartbeat_base: number;
  reported_status: string;
  risk_score: number;
}

export interface AgentReport {
  format: typeof AGENT_REPORT_FORMAT;
  tenants: { tenant_id: string; agents: ReportedAgent[] }[];
}

const MS = { type: 'integer', minimum: 0, maximum: 8_640_000_000_000_000 };
const validate = new OwnSchema({
  type: 'object',
  additionalProperties: false,
  required: ['format', 'tenants'],
  properties: {
    format: { const: AGENT_REPORT_FORMAT },
    tenants: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['tenant_id', 'agents'],
        properties: {
          tenant_id: { type: 'string', minLength: 1, maxLength: 64 },
          agents: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['agent_id', 'name', 'policy_pack', 'risk_budget', 'metadata', 'created_at', 'last_seen', 'heartbeat_base', 'reported_status', 'risk_score'],
              properties: {
                agent_id: { type: 'string', minLength: 1, maxLength: 256 },
                name: { type: 'string', minLength: 1, maxLength: 256 },
                policy_pack: { anyOf: [{ type: 'string', enum: [...PACK_NAMES] }, { type: 'null' }] },
                risk_budget: { anyOf: [{ type: 'number', minimum: 0, maximum: 100 }, { type: 'null' }] },
                metadata: { anyOf: [{ type: 'object' }, { type: 'null' }] },
                created_at: MS,
                last_seen: MS,
                heartbeat_base: MS,
                reported_status: { type: 'string', maxLength: 64 },
                risk_score: { type: 'number', minimum: 0, maximum: 100 },
              },
            },
          },
        },
      },
    },
  },
});

/** Checks a report's shape and bounds: 400 when malformed, 413 past `maxAgents` agents in all. */
export function parseAgentReport(body: unknown, maxAgents: number): AgentReport {
  assertValid(validate, body);
  const report = body as AgentReport;
  let n = 0;
  for (const t of report.tenants) {
    n += t.agents.length;
    for (const a of t.agents) {
      if (a.metadata !== null && Buffer.byteLength(JSON.stringify(a.metadata)) > MAX_METADATA_BYTES) throw new GatewayError('invalid_request', `metadata: at most ${MAX_METADATA_BYTES} bytes of JSON`);
    }
  }
  if (n > maxAgents) throw new GatewayError('payload_too_large', `at most ${maxAgents} agents per report`);
  return report;
}
