import type { Handler, Reply, RouteOptions } from '../../http/server.js';
import type { RequestContext } from '../../http/request-context.js';
import { assertCsrf, formBody, viewerOf, type SessionViewer } from './console-session.js';
import { HTML_HEADERS, HTML_TYPE } from './html-headers.js';

// How the console's routes authenticate and answer, shared by every file that registers them (console-routes.ts and
// the capability files beside it).

/** A page for a signed-in person (the `session` guard, console-session.ts); anyone else is sent to sign in. */
export const PAGE: RouteOptions = { auth: 'session', signIn: '/console/login', body: 'none' };
/** A page only an admin may open (403 `missing_scope` for any other role). */
export const ADMIN_PAGE: RouteOptions = { auth: 'session', signIn: '/console/login', scope: 'admin:manage', body: 'none' };
/** A form post of a signed-in person; refused 401 `session_required` without a session, before its body is read. */
export const FORM: RouteOptions = { auth: 'session', body: 'raw' };
/** A form post only an admin may make (403 `missing_scope` for any other role, before its body is read). */
export const ADMIN_FORM: RouteOptions = { auth: 'session', scope: 'admin:manage', body: 'raw' };

/** A page: the console's HTML headers (strict CSP, no caching), plus any given. */
export function htmlReply(status: number, body: string, extra?: Readonly<Record<string, string>>): Reply {
  return { status, raw: body, contentType: HTML_TYPE, headers: extra ? { ...HTML_HEADERS, ...extra } : HTML_HEADERS };
}

/** 303 to a page (after a form post, so a reload never posts it again). */
export function seeOther(location: string, cookie?: string): Reply {
  return { status: 303, headers: cookie ? { location, 'set-cookie': cookie, 'cache-control': 'no-store' } : { location, 'cache-control': 'no-store' } };
}

/**
 * A form post (FORM, ADMIN_FORM) of the person its guard admitted, its CSRF token checked before anything else of the
 * form is read. Errors are the service's error envelope, like every other route's (docs/authentication.md).
 */
export const csrfCheckedPost =
  (act: (v: SessionViewer, form: URLSearchParams, ctx: RequestContext) => Reply | Promise<Reply>): Handler =>
  (ctx) => {
    const v = viewerOf(ctx);
    const form = formBody(ctx);
    assertCsrf(form, v.csrf);
    return act(v, form, ctx);
  };
