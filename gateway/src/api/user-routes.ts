import type { HttpServer } from '../http/server.js';
import { assertOwnTenant } from '../http/list-params.js';
import { userView } from '../identity/users/user-record.js';
import { addUser, checkUserRequest, disableUser, type UserAdminDeps } from './user-admin.js';

/** Users of the caller's tenant (docs/authentication.md): admins list, create and disable them. */
export function registerUserRoutes(server: HttpServer, deps: UserAdminDeps): void {
  const { users } = deps;

  server.route('get', '/admin/users', { auth: 'pat', scope: 'admin:manage', body: 'none' }, (ctx) => ({
    status: 200,
    body: { data: users.list(ctx.auth.tenantId).map(userView) },
  }));

  server.route('post', '/admin/users', { auth: 'pat', scope: 'admin:manage', body: 'json' }, async (ctx) => {
    const body = checkUserRequest(ctx.body);
    assertOwnTenant(ctx, body.tenant_id);
    const rec = await addUser(deps, ctx.auth, body, ctx.trace.traceId);
    return { status: 201, body: userView(rec) };
  });

  server.route('post', '/admin/users/:id/disable', { auth: 'pat', scope: 'admin:manage', body: 'none' }, async (ctx) => {
    const rec = await disableUser(deps, ctx.auth, ctx.params[0] as string, ctx.trace.traceId);
    return { status: 200, body: userView(rec) };
  });
}
