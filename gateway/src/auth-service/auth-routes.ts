import { Ajv } from 'ajv';
import { GatewayError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import { bearerToken } from '../auth/authenticate.js';
import { ROLES, ROLE_SCOPES, type Role } from '../auth/principal.js';
import { describeAjvError } from '../policy/validate-policy.js';
import type { GatewayDeps } from '../gateway-deps.js';
import { isValidLedgerName } from '../ledger/index.js';

const ROLE_RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

const validateTokenRequest = new Ajv({ useDefaults: true }).compile({
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

/**
 * The authentication service (AUTH_PORT): token verification and PAT issuance. Issuing needs an admin:manage PAT, and
 * a token is never issued above the caller's role. The new token is shown once and stored only as a hash.
 */
export function registerAuthRoutes(server: HttpServer, deps: GatewayDeps): void {
  const { authenticator, tokens, config } = deps;

  server.route('get', '/health', { scope: null, body: 'none' }, () => ({ status: 200, body: { status: 'ok', service: 'aduana-auth' } }));

  // RFC 7662-style: any well-formed request gets 200; `active` says whether the token is good.
  server.route('get', '/verify', { scope: null, body: 'none' }, (ctx) => {
    const token = bearerToken(ctx.authorization);
    if (!token) throw new GatewayError('unauthenticated');
    try {
      const p = authenticator.fromToken(token);
      return {
        status: 200,
        body: { active: true, type: p.kind, userId: p.userId, email: p.email, role: p.role, scope: p.scopes.join(' '), tenantId: p.tenantId, tokenId: p.id },
      };
    } catch (err) {
      if (err instanceof GatewayError && err.status === 401) return { status: 200, body: { active: false } };
      throw err;
    }
  });

  server.route('post', '/token', { scope: null, body: 'json' }, async (ctx) => {
    const caller = authenticator.fromHeader(ctx.authorization);
    ctx.principal = caller;
    if (!caller.scopes.includes('admin:manage')) throw new GatewayError('missing_scope', 'a PAT needs admin:manage to issue tokens');
    const body = structuredClone(ctx.body);
    if (!validateTokenRequest(body)) throw new GatewayError('invalid_request', describeAjvError(validateTokenRequest.errors, ''));
    const req = body as { name: string; role: Role; expires_in_days?: number; agent_id?: string };
    if (req.agent_id !== undefined && !isValidLedgerName(req.agent_id)) throw new GatewayError('invalid_request', 'agent_id: at most 256 bytes, no control characters');
    if (ROLE_RANK[req.role] > ROLE_RANK[caller.role]) throw new GatewayError('missing_scope', `a ${caller.role} cannot issue an ${req.role} token`);
    const { token, record } = await tokens.create({
      tenantId: caller.tenantId,
      role: req.role,
      name: req.name,
      expiresInDays: req.expires_in_days ?? config.patTtlDays,
      userId: caller.userId,
      agentId: req.agent_id ?? null,
    });
    return {
      status: 200,
      body: { token, id: record.id, name: record.name, role: record.role, scope: ROLE_SCOPES[record.role].join(' '), expires_at: record.expires_at, agent_id: record.agent_id ?? null },
    };
  });
}
