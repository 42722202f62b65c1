import { GatewayError } from '../errors.js';
import { isValidLedgerName } from '../ledger/index.js';
import { PACK_NAMES, type PackName } from '../policy/packs.js';
import { assertValid, OwnSchema } from '../platform/gateway-ajv.js';
import { AGENT_STATUSES, type AgentStatus } from './agent-state.js';
import type { AgentProfile } from './agent-registry.js';

/** Largest heartbeat or profile `metadata`, bytes of JSON: it is kept in memory for every agent. */
export const MAX_METADATA_BYTES = 4096;

const AGENT_ID = { type: 'string', minLength: 1, maxLength: 256 };
const NAME = { type: 'string', minLength: 1, maxLength: 256 };
const PACK = { anyOf: [{ type: 'string', enum: [...PACK_NAMES] }, { type: 'null' }] };
const BUDGET = { anyOf: [{ type: 'number', minimum: 0, maximum: 100 }, { type: 'null' }] };
const TENANT = { type: 'string', minLength: 1, maxLength: 64 };

const REGISTER = new OwnSchema({
  type: 'object',
  additionalProperties: false,
  required: ['agent_id', 'name'],
  properties: { agent_id: AGENT_ID, name: NAME, policy_pack: PACK, risk_budget: BUDGET, metadata: { type: 'object' }, tenant_id: TENANT },
});
const UPSERT = new OwnSchema({
  type: 'object',
  additionalProperties: false,
  required: ['agent_id'],
  properties: { agent_id: AGENT_ID, name: NAME, policy_pack: PACK, risk_budget: BUDGET, metadata: { type: 'object' }, tenant_id: TENANT },
});
const HEARTBEAT = new OwnSchema({
  type: 'object',
  additionalProperties: false,
  required: ['agent_id'],
  properties: { agent_id: AGENT_ID, status: { type: 'string', minLength: 1, maxLength: 64 }, metadata: { type: 'object' }, tenant_id: TENANT },
});

export interface ProfileRequest {
  agentId: string;
  tenantId: string | undefined;
  profile: AgentProfile;
}

export interface HeartbeatRequest {
  agentId: string;
  tenantId: string | undefined;
  status?: string;
  metadata?: Record<string, unknown>;
}

/** An agent id in a body or a path: a ledger name (no control characters, at most 256 bytes). */
export function assertAgentId(id: string, field = 'agent_id'): void {
  if (!isValidLedgerName(id)) throw new GatewayError('invalid_request', `${field}: no control characters, at most 256 bytes`);
}

function assertMetadata(m: unknown): void {
  if (m !== undefined && Buffer.byteLength(JSON.stringify(m)) > MAX_METADATA_BYTES) throw new GatewayError('invalid_request', `metadata: at most ${MAX_METADATA_BYTES} bytes of JSON`);
}

function assertControlFree(s: string | undefined, field: string): void {
  // eslint-disable-next-line no-control-regex -- the point is to find control characters
  if (s !== undefined && /[\u0000-\u001f\u007f]/.test(s)) throw new GatewayError('invalid_request', `${field}: no control characters`);
}

function profileRequest(validate: OwnSchema, body: unknown): ProfileRequest {
  assertValid(validate, body);
  const b = body as { agent_id: string; tenant_id?: string; name?: string; policy_pack?: PackName | null; risk_budget?: number | null; metadata?: Record<string, unknown> };
  assertAgentId(b.agent_id);
  assertControlFree(b.name, 'name');
  assertMetadata(b.metadata);
  const profile: AgentProfile = {};
  if (b.name !== undefined) profile.name = b.name;
  if (b.policy_pack !== undefined) profile.policy_pack = b.policy_pack;
  if (b.risk_budget !== undefined) profile.risk_budget = b.risk_budget;
  if (b.metadata !== undefined) profile.metadata = b.metadata;
  return { agentId: b.agent_id, tenantId: b.tenant_id, profile };
}

/** `POST /v1/agents/register` {agent_id, name, policy_pack?, risk_budget?, metadata?}. */
export function parseRegister(body: unknown): ProfileRequest {
  return profileRequest(REGISTER, body);
}

/** `POST /v1/agents` {agent_id, name?, policy_pack?, risk_budget?, metadata?}: register or update. */
export function parseUpsert(body: unknown): ProfileRequest {
  return profileRequest(UPSERT, body);
}

/** `POST /v1/heartbeat` {agent_id, status?, metadata?}: `status` is what the agent reports of itself (a label). */
export function parseHeartbeat(body: unknown): HeartbeatRequest {
  assertValid(HEARTBEAT, body);
  const b = body as { agent_id: string; tenant_id?: string; status?: string; metadata?: Record<string, unknown> };
  assertAgentId(b.agent_id);
  assertControlFree(b.status, 'status');
  assertMetadata(b.metadata);
  const out: HeartbeatRequest = { agentId: b.agent_id, tenantId: b.tenant_id };
  if (b.status !== undefined) out.status = b.status;
  if (b.metadata !== undefined) out.metadata = b.metadata;
  return out;
}

/** `status` filter of `GET /v1/agents`. */
export function statusParam(raw: string | null): AgentStatus | null {
  if (raw === null || raw === '') return null;
  if (!(AGENT_STATUSES as readonly string[]).includes(raw)) throw new GatewayError('invalid_request', `status: one of ${AGENT_STATUSES.join(', ')}`);
  return raw as AgentStatus;
}
