import { GatewayError } from '../../errors.js';
import type { HttpServer } from '../../http/server.js';
import { bearerToken } from '../../identity/auth/authenticate.js';
import { assertValid, OwnSchema } from '../../platform/gateway-ajv.js';
import { userView } from '../../identity/users/user-record.js';
import type { GatewayDeps } from '../../gateway-deps.js';

const validateLogin = new OwnSchema({
  type: 'object',
  additionalProperties: false,
  required: ['email', 'password'],
  properties: {
    email: { type: 'string', minLength: 1, maxLength: 320 },
    // Its byte length is checked before hashing (PASSWORD_MAX_BYTES).
    password: { type: 'string', minLength: 1 },
  },
});

/** POST /login, GET /me, POST /logout (docs/authentication.md). */
export function registerSessionRoutes(server: HttpServer, deps: Pick<GatewayDeps, 'passwordLogin' | 'sessions' | 'users' | 'tenants'>): void {
  const { passwordLogin, sessions, users, tenants } = deps;

  // The Cookie header carries the browser's device cookie, if any; a sign-in answers a renewed one.
  server.route('post', '/login', { auth: 'public', body: 'json', headers: ['cookie'] }, async (ctx) => {
    assertValid(validateLogin, ctx.body);
    const body = ctx.body as { email: string; password: string };
    const { token, record, deviceCookie } = await passwordLogin.login(body.email, body.password, ctx.clientAddress(), ctx.header('cookie'));
    return { status: 200, body: { session_token: token, expires_at: record.expires_at }, headers: { 'cache-control': 'no-store' }, cookies: [deviceCookie] };
  });

  // The current user (id, name, avatar, email, role, provider: strings; docs/authentication.md): for a session, or a
  // PAT minted by a user; a PAT of no user answers its token's view.
  server.route('get', '/me', { auth: 'pat', scope: 'runtime:read', body: 'none' }, (ctx) => {
    const p = ctx.auth;
    const user = p.userId ? users.get(p.userId) : undefined;
    const tenant = tenants.get(p.tenantId);
    return {
      status: 200,
      body: {
        ...(user ? userView(user) : { id: '', tenant_id: p.tenantId, email: '', name: '', role: p.role, provider: 'token', avatar_url: null, created_at: null, disabled: false }),
        avatar: user?.avatar_url ?? '',
        role: p.role,
        scopes: p.scopes,
        tenant: tenant ? { id: tenant.id, name: tenant.name, plan: tenant.plan } : null,
        auth: { kind: p.kind, id: p.id },
      },
    };
  });

  server.route('post', '/logout', { auth: 'pat', scope: 'runtime:read', body: 'none' }, async (ctx) => {
    if (ctx.auth.kind !== 'session') throw new GatewayError('session_required', 'only a login session logs out; revoke a token with `aduana token revoke ID`');
    await sessions.revoke(bearerToken(ctx.authorization));
    return { status: 204 };
  });
}
