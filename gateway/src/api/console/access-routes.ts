import { randomBytes } from 'node:crypto';
import { growingLru } from '@aduana/shared';
import { GatewayError, type ErrorCode } from '../../errors.js';
import type { HttpServer } from '../../http/server.js';
import type { GatewayDeps } from '../../gateway-deps.js';
import { ROLES } from '../../identity/auth/principal.js';
import { issueToken } from '../auth-service/issue-token.js';
import { addUser, checkUserRequest, disableUser, generatePassword, passwordRules } from '../user-admin.js';
import { actorOf, tokenDigestView } from '../../governance/admin-actions.js';
import { ADMIN_FORM, ADMIN_PAGE, csrfCheckedPost, htmlReply, seeOther } from './console-route-kit.js';
import { viewerOf, type SessionViewer } from './console-session.js';
import { tokensPage, type TokenForm, type TokensView } from './pages/tokens-page.js';
import { usersPage, type UserForm, type UsersView } from './pages/users-page.js';

/** Ids as the stores make them (checked after the route's guard, so a viewer learns nothing from the shape). */
const TOKEN_ID = /^tok_[0-9A-Za-z]{1,64}$/;
const USER_ID = /^usr_[0-9A-Za-z]{1,64}$/;
/** Rows a page lists at most: the tenant's newest tokens or users (the rest: `aduana token list`, `aduana user list`). */
export const ACCESS_LIST_LIMIT = 500;
/** A token form's one-time id (16 random bytes, base64url). */
const FORM_ONCE = /^[A-Za-z0-9_-]{22}$/;
/** Token forms remembered as sent, per process: a browser's reload re-posts one; it must not make a second token. */
const SENT_FORMS = 10_000;
const SENT_FORM_TTL_MS = 24 * 3_600_000;
/** Refusals a create form answers by showing itself again with the message (anything else is the error envelope). */
const FORM_ERRORS = new Set<ErrorCode>(['invalid_request', 'conflict']);

export type AccessDeps = Pick<GatewayDeps, 'tokens' | 'users' | 'tenants' | 'sessions' | 'config' | 'onAdminAction'>;

/** The newest `limit` of records kept oldest first, newest first. */
function newest<T>(all: readonly T[]): T[] {
  return all.slice(-ACCESS_LIST_LIMIT).reverse();
}

/** A refusal to show on the form, or null (rethrow it). */
function formError(err: unknown): GatewayError | null {
  return err instanceof GatewayError && FORM_ERRORS.has(err.code) ? err : null;
}

/**
 * Token and user management for admins (docs/console.md, "Tokens and users"): the same checks, limits and ledger
 * entries as `POST /token` and `/admin/users` (the code is theirs: issue-token.ts, user-admin.ts). A new token's secret,
 * or a generated password, is on the one page answering the POST (no-store), never in a redirect, URL or log.
 */
export function registerAccessRoutes(server: HttpServer, deps: AccessDeps): void {
  const { tokens, users, sessions, config, onAdminAction } = deps;
  const rules = passwordRules(config);

  const sentForms = growingLru<string, true>(SENT_FORMS, SENT_FORM_TTL_MS);
  const emptyTokenForm = (): TokenForm => ({ name: '', role: 'operator', expiresInDays: String(config.patTtlDays), agentId: '' });
  // The spec's rule for the dashboard: enterprise tenants get their tokens from their account manager, never self-service.
  const selfService = (tenantId: string): boolean => deps.tenants.get(tenantId)?.plan !== 'enterprise';
  const tokensView = (v: SessionViewer, over: Partial<TokensView>): TokensView => {
    const all = tokens.list(v.principal.tenantId);
    return { tokens: newest(all), total: all.length, roles: ROLES, maxDays: config.patMaxTtlDays, sessionEnds: sessions.find(v.token)?.expires_at ?? null, once: randomBytes(16).toString('base64url'), form: emptyTokenForm(), error: '', notice: '', created: null, now: Date.now(), selfService: selfService(v.principal.tenantId), ...over };
  };

  server.route('get', '/console/tokens', ADMIN_PAGE, (ctx) => {
    const v = viewerOf(ctx);
    // Said only of a token of the tenant that is revoked: a crafted link cannot make the page claim anything else.
    const id = ctx.query.get('revoked');
    const r = id ? tokens.get(id.slice(0, 64)) : undefined;
    const notice = r && r.tenant_id === v.principal.tenantId && r.revoked_at ? `Token ${r.name} (${r.id}) revoked.` : '';
    return htmlReply(200, tokensPage(v, tokensView(v, { notice })));
  });

  server.route(
    'post',
    '/console/tokens',
    ADMIN_FORM,
    csrfCheckedPost(async (v, form, ctx) => {
      const typed: TokenForm = { name: (form.get('name') ?? '').slice(0, 1000), role: (form.get('role') ?? '').slice(0, 64), expiresInDays: (form.get('expires_in_days') ?? '').trim().slice(0, 32), agentId: (form.get('agent_id') ?? '').slice(0, 1000) };
      // The API's body: a number where one was typed (anything else is left for its schema to refuse), nothing when empty.
      const request: Record<string, unknown> = { name: typed.name, role: typed.role };
      if (typed.expiresInDays !== '') request['expires_in_days'] = /^-?\d{1,9}$/.test(typed.expiresInDays) ? Number(typed.expiresInDays) : typed.expiresInDays;
      if (typed.agentId !== '') request['agent_id'] = typed.agentId;
      if (!selfService(v.principal.tenantId)) throw new GatewayError('self_service_disabled');
      const once = form.get('once') ?? '';
      if (!FORM_ONCE.test(once)) throw new GatewayError('invalid_request', 'once: the form is out of date; open the page again');
      // Taken before anything is awaited, so a form sent twice at once makes one token too.
      if (sentForms.has(once)) {
        return htmlReply(409, tokensPage(v, tokensView(v, { error: 'This form was already sent: the token it made is listed below, and its secret is not shown again.' })));
      }
      sentForms.set(once, true);
      try {
        // A token made from a login session never outlives it (as POST /token with a session).
        const created = await issueToken(deps, v.principal, request, sessions.find(v.token)?.expires_at, ctx.trace.traceId);
        return htmlReply(200, tokensPage(v, tokensView(v, { created })));
      } catch (err) {
        // Nothing was made: the same form may be sent again.
        sentForms.delete(once);
        const refused = formError(err);
        if (!refused) throw err;
        return htmlReply(refused.status, tokensPage(v, tokensView(v, { form: typed, error: refused.message })));
      }
    }),
  );

  server.route(
    'post',
    '/console/tokens/:id/revoke',
    ADMIN_FORM,
    csrfCheckedPost(async (v, _form, ctx) => {
      const tenantId = v.principal.tenantId;
      const id = ctx.params[0] as string;
      const before = TOKEN_ID.test(id) ? tokens.get(id) : undefined;
      if (!before || before.tenant_id !== tenantId) throw new GatewayError('not_found', 'token not found');
      // Revoking a revoked token changes nothing, and chains nothing.
      if (!before.revoked_at) {
        if (!(await tokens.revoke(id, tenantId))) throw new GatewayError('not_found', 'token not found');
        const after = tokens.get(id);
        await onAdminAction(tenantId, { actor: actorOf(v.principal), action: 'token.revoked', target: id, before: tokenDigestView(before), after: after ? tokenDigestView(after) : null }, ctx.trace.traceId);
      }
      return seeOther(`/console/tokens?revoked=${encodeURIComponent(id)}`);
    }),
  );

  const emptyUserForm = (): UserForm => ({ email: '', name: '', role: 'viewer', generate: true });
  const usersView = (v: SessionViewer, over: Partial<UsersView>): UsersView => {
    const all = users.list(v.principal.tenantId);
    return { users: newest(all), total: all.length, roles: ROLES, minPasswordLength: rules.minLength, form: emptyUserForm(), error: '', notice: '', created: null, ...over };
  };

  server.route('get', '/console/users', ADMIN_PAGE, (ctx) => {
    const v = viewerOf(ctx);
    const notice = (key: string, done: string) => {
      const id = ctx.query.get(key);
      const u = id ? users.get(id.slice(0, 64)) : undefined;
      return u && u.tenant_id === v.principal.tenantId ? `User ${u.email} ${done}.` : '';
    };
    return htmlReply(200, usersPage(v, usersView(v, { notice: notice('created', 'created') || notice('disabled', 'disabled') })));
  });

  server.route(
    'post',
    '/console/users',
    ADMIN_FORM,
    csrfCheckedPost(async (v, form, ctx) => {
      const typed: UserForm = { email: (form.get('email') ?? '').slice(0, 1000), name: (form.get('name') ?? '').slice(0, 1000), role: (form.get('role') ?? '').slice(0, 64), generate: form.get('password_mode') !== 'typed' };
      const password = typed.generate ? generatePassword(rules) : (form.get('password') ?? '');
      try {
        const user = await addUser(deps, v.principal, checkUserRequest({ email: typed.email, name: typed.name, role: typed.role, password }), ctx.trace.traceId);
        // A typed password is the admin's to know: nothing to show once, so the answer is a redirect (a reload re-posts nothing).
        if (!typed.generate) return seeOther(`/console/users?created=${encodeURIComponent(user.id)}`);
        return htmlReply(200, usersPage(v, usersView(v, { created: { user, password } })));
      } catch (err) {
        const refused = formError(err);
        if (!refused) throw err;
        return htmlReply(refused.status, usersPage(v, usersView(v, { form: typed, error: refused.message })));
      }
    }),
  );

  server.route(
    'post',
    '/console/users/:id/disable',
    ADMIN_FORM,
    csrfCheckedPost(async (v, _form, ctx) => {
      const id = ctx.params[0] as string;
      if (!USER_ID.test(id)) throw new GatewayError('not_found', 'user not found');
      try {
        await disableUser(deps, v.principal, id, ctx.trace.traceId);
      } catch (err) {
        // Their own account: the page again, saying why (a 404 stays the error envelope).
        if (!(err instanceof GatewayError) || err.code !== 'conflict') throw err;
        return htmlReply(409, usersPage(v, usersView(v, { error: err.message })));
      }
      return seeOther(`/console/users?disabled=${encodeURIComponent(id)}`);
    }),
  );
}
