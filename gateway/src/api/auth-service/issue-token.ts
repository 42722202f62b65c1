import { GatewayError } from '../../errors.js';
import { ROLES, type Principal, type Role } from '../../identity/auth/principal.js';
import { assertValid, OwnSchema } from '../../platform/gateway-ajv.js';
import type { GatewayDeps } from '../../gateway-deps.js';
import { isValidLedgerName } from '../../ledger/index.js';
import { actorOf, tokenDigestView } from '../../governance/admin-actions.js';
import type { CreatedToken } from '../../identity/auth/token-store.js';

const ROLE_RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

const validateTokenRequest = new OwnSchema({
  type: 'object',
  additionalProperties: false,
  required: ['name', 'role'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    role: { type: 'string', enum: ROLES },
    expires_in_days: { type: 'integer', minimum: 1, maximum: 3650 },
    // Binds the token to one agent (docs/policies.md, "Agents and tokens"); a ledger name: no control characters.
    agent_id: { type: 'string', minLength: 1, maxLength: 256, pattern: '^[^\\u0000-\\u001f\\u007f]+$' },
  },
});

/** A token request: the body of `POST /token`, and what the console's tokens page posts. */
export interface TokenRequest {
  name: string;
  role: Role;
  expires_in_days?: number;
  agent_id?: string;
}

export type IssueTokenDeps = Pick<GatewayDeps, 'tokens' | 'config' | 'onAdminAction'>;

/**
 * A PAT issued by `caller` (POST /token, the console's tokens page): the request checked (400), never above the
 * caller's role (403), never for longer than PAT_MAX_TTL_DAYS (400) nor past `minterExpiresAt`, the expiry of the
 * credential that asks (a token cannot extend its holder's access: twelve hours of sign-in never turn into a year,
 * docs/authentication.md). Chained as `token.created`. The secret is in the answer only: the store keeps its hash.
 */
export async function issueToken(deps: IssueTokenDeps, caller: Principal, request: unknown, minterExpiresAt: string | undefined, traceId: string): Promise<CreatedToken> {
  const { tokens, config } = deps;
  const body = structuredClone(request);
  assertValid(validateTokenRequest, body);
  const req = body as TokenRequest;
  if (req.agent_id !== undefined && !isValidLedgerName(req.agent_id)) throw new GatewayError('invalid_request', 'agent_id: at most 256 bytes, no control characters');
  if (ROLE_RANK[req.role] > ROLE_RANK[caller.role]) throw new GatewayError('missing_scope', `a ${caller.role} cannot issue an ${req.role} token`);
  const days = req.expires_in_days ?? config.patTtlDays;
  if (days > config.patMaxTtlDays) throw new GatewayError('invalid_request', `expires_in_days: at most ${config.patMaxTtlDays}`);
  const created = await tokens.create({
    tenantId: caller.tenantId,
    role: req.role,
    name: req.name,
    expiresInDays: days,
    userId: caller.userId,
    notAfter: minterExpiresAt === undefined ? undefined : Date.parse(minterExpiresAt),
    agentId: req.agent_id ?? null,
  });
  await deps.onAdminAction(caller.tenantId, { actor: actorOf(caller), action: 'token.created', target: created.record.id, before: null, after: tokenDigestView(created.record) }, traceId);
  return created;
}
