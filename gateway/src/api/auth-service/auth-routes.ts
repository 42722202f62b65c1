import { GatewayError } from '../../errors.js';
import type { HttpServer } from '../../http/server.js';
import { HEALTH_PATHS } from '../../http/health-paths.js';
import { bearerToken } from '../../identity/auth/authenticate.js';
import { ROLE_SCOPES, type Principal } from '../../identity/auth/principal.js';
import { VerifyFailures } from './verify-failures.js';
import { clientSource } from '../../platform/client-source.js';
import type { GatewayDeps } from '../../gateway-deps.js';
import { registerSessionRoutes } from './session-routes.js';
import { registerIdpRoutes } from './idp-routes.js';
import { issueToken } from './issue-token.js';

/** What the authentication service needs: the gateway has all of it, the control plane the same parts on PostgreSQL. */
export type AuthServiceDeps = Pick<GatewayDeps, 'authenticator' | 'tokens' | 'config' | 'runtimes' | 'passwordLogin' | 'sessions' | 'users' | 'tenants' | 'logger' | 'egress' | 'onAdminAction'>;

/**
 * The authentication service (AUTH_PORT): token verification and PAT issuance. Issuing needs an admin:manage PAT, and
 * a token is never issued above the caller's role, for longer than PAT_MAX_TTL_DAYS, or past the expiry of the caller's
 * own token or login session.
 * The new token is shown once and stored only as a hash. Both routes are rate limited (docs/sidecar.md). Logins and
 * sessions (/login, /me, /logout) are in session-routes.ts.
 */
export function registerAuthRoutes(server: HttpServer, deps: AuthServiceDeps): void {
  const { authenticator, tokens, sessions, config, runtimes } = deps;
  const failures = new VerifyFailures(config.verifyFailuresPerMinute);
  registerSessionRoutes(server, deps);
  registerIdpRoutes(server, deps);

  for (const path of HEALTH_PATHS) server.route('get', path, { auth: 'public', body: 'none' }, () => ({ status: 200, body: { status: 'ok', service: 'aduana-auth' } }));

  // RFC 7662-style: any well-formed request gets 200; `active` says whether the token is good. A good token counts
  // against its tenant's plan; a bad one (or none) against the client address's failure budget.
  server.route('get', '/verify', { auth: 'public', body: 'none' }, (ctx) => {
    // Counted per client source: an IPv6 /64 is one client, not 2^64 of them.
    const address = clientSource(ctx.clientAddress());
    failures.assertAllowed(address);
    const token = bearerToken(ctx.authorization);
    if (!token) {
      failures.recordFailure(address);
      throw new GatewayError('unauthenticated');
    }
    let p: Principal;
    try {
      p = authenticator.fromToken(token);
    } catch (err) {
      if (!(err instanceof GatewayError) || err.status !== 401) throw err;
      failures.recordFailure(address);
      return { status: 200, body: { active: false } };
    }
    ctx.principal = p;
    const waiting = runtimes.admission.admit(p);
    const reply = {
      status: 200,
      body: { active: true, type: p.kind, userId: p.userId, email: p.email, role: p.role, scope: p.scopes.join(' '), tenantId: p.tenantId, tokenId: p.id },
    };
    // The plan limit counted on Redis (docs/fleet.md, "Shared limits") answers once Redis has.
    return waiting ? waiting.then(() => reply) : reply;
  });

  // Authenticated, scope-checked and plan-limited by the server from the headers, before the body is read or parsed.
  server.route('post', '/token', { auth: 'pat', scope: 'admin:manage', body: 'json' }, async (ctx) => {
    const caller = ctx.auth;
    // The minting credential: a PAT, or a login session (its expiry bounds the new token's).
    const minter = caller.kind === 'pat' ? tokens.get(caller.id) : sessions.find(bearerToken(ctx.authorization));
    const { token, record } = await issueToken(deps, caller, ctx.body, minter?.expires_at, ctx.trace.traceId);
    return {
      status: 200,
      body: { token, id: record.id, name: record.name, role: record.role, scope: ROLE_SCOPES[record.role].join(' '), expires_at: record.expires_at, agent_id: record.agent_id ?? null },
    };
  });
}
