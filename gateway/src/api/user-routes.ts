import { GatewayError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import { ROLES, type Role } from '../identity/auth/principal.js';
import { assertOwnTenant } from '../http/list-params.js';
import { assertValid, OwnSchema } from '../http/gateway-ajv.js';
import { createPasswordUser } from '../identity/users/create-user.js';
import { userView } from '../identity/users/user-record.js';
import type { GatewayDeps } from '../gateway-deps.js';
import { actorOf } from '../ledger/admin-actions.js';

const validateCreate = new OwnSchema({
  type: 'object',
  additionalProperties: false,
  required: ['email', 'name', 'role', 'password'],
  properties: {
    email: { type: 'string', minLength: 3, maxLength: 320 },
    name: { type: 'string', minLength: 1, maxLength: 200 },
    role: { type: 'string', enum: ROLES },
    password: { type: 'string' },
    tenant_id: { type: 'string' },
  },
});

/** Users of the caller's tenant (docs/authentication.md): admins list, create and disable them. */
export function registerUserRoutes(server: HttpServer, deps: Pick<GatewayDeps, 'users' | 'tenants' | 'config' | 'onAdminAction'>): void {
  const { users, tenants, config, onAdminAction } = deps;
  const rules = { minLength: config.passwordMinLength, maxBytes: config.passwordMaxBytes, scryptLogN: config.passwordScryptLogN };

  server.route('get', '/admin/users', { auth: 'pat', scope: 'admin:manage', body: 'none' }, (ctx) => ({
    status: 200,
    body: { data: users.list(ctx.auth.tenantId).map(userView) },
  }));

  server.route('post', '/admin/users', { auth: 'pat', scope: 'admin:manage', body: 'json' }, async (ctx) => {
    assertValid(validateCreate, ctx.body);
    const body = ctx.body as { email: string; name: string; role: Role; password: string; tenant_id?: string };
    assertOwnTenant(ctx, body.tenant_id);
    const rec = await createPasswordUser(users, tenants, rules, { tenantId: ctx.auth.tenantId, email: body.email, name: body.name, role: body.role, password: body.password });
    await onAdminAction(ctx.auth.tenantId, { actor: actorOf(ctx.auth), action: 'user.created', target: rec.id, before: null, after: userView(rec) }, ctx.trace.traceId);
    return { status: 201, body: userView(rec) };
  });

  server.route('post', '/admin/users/:id/disable', { auth: 'pat', scope: 'admin:manage', body: 'none' }, async (ctx) => {
    const id = ctx.params[0] as string;
    const before = users.get(id);
    const rec = await users.disable(ctx.auth.tenantId, id);
    if (!rec) throw new GatewayError('not_found', 'user not found');
    await onAdminAction(ctx.auth.tenantId, { actor: actorOf(ctx.auth), action: 'user.disabled', target: rec.id, before: before && before.tenant_id === rec.tenant_id ? userView(before) : null, after: userView(rec) }, ctx.trace.traceId);
    return { status: 200, body: userView(rec) };
  });
}
