import { timingSafeEqual } from 'node:crypto';
import { GatewayError } from '../../errors.js';
import type { Authenticator } from '../../identity/auth/authenticate.js';
import { hasScope } from '../../identity/auth/principal.js';
import { SESSION_COOKIE, cookieValue } from '../../platform/cookies.js';
import type { RequestContext } from '../../http/request-context.js';
import type { AuthGuard } from '../../http/route-guards.js';
import type { Viewer } from './pages/layout.js';
import type { SessionRepository } from '../../storage/repositories.js';

/** The console's signed-in person, with the session token (to end it) and its CSRF token (to check its forms). */
export type SessionViewer = Viewer & { token: string };

/** Each admitted request's viewer, for its handler (`viewerOf`); gone with the request. */
const viewers = new WeakMap<RequestContext, SessionViewer>();

/**
 * The `session` routes' guard (the console's pages and forms), given to the authentication service's server by whoever
 * builds it: a usable login session from the cookie, else 401 `session_required` (a page sends the caller to sign in
 * instead, RouteAuth's signIn); with a scope declared, a role without it is 403 `missing_scope`.
 */
export function consoleSessionGuard(authenticator: Authenticator, sessions: SessionRepository): AuthGuard {
  return {
    headers: ['cookie'],
    check(ctx, scope) {
      const v = consoleViewer(ctx, authenticator, sessions);
      if (!v) throw new GatewayError('session_required');
      if (scope !== undefined && !hasScope(v.principal, scope)) throw new GatewayError('missing_scope', `the ${v.principal.role} role lacks the ${scope} scope`);
      viewers.set(ctx, v);
    },
  };
}

/** The viewer the `session` guard admitted this request for. */
export function viewerOf(ctx: RequestContext): SessionViewer {
  const v = viewers.get(ctx);
  if (!v) throw new Error('console route ran without its session guard');
  return v;
}

/**
 * The console's signed-in person, from the session cookie: a login session only (a PAT never rides in a cookie).
 * Null when there is no usable session (missing, forged, expired, revoked, disabled user).
 */
function consoleViewer(ctx: RequestContext, authenticator: Authenticator, sessions: SessionRepository): SessionViewer | null {
  const token = cookieValue(ctx.header('cookie'), SESSION_COOKIE);
  if (!token.startsWith('adu_ses_')) return null;
  let principal;
  try {
    principal = authenticator.fromToken(token);
  } catch (err) {
    if (err instanceof GatewayError && err.status === 401) return null;
    throw err;
  }
  const rec = sessions.find(token);
  if (!rec) return null;
  ctx.principal = principal;
  return { principal, csrf: rec.csrf, token };
}

/** 403 unless the form's `csrf` field equals the expected token (constant-time). */
export function assertCsrf(form: URLSearchParams, expected: string): void {
  const given = Buffer.from(form.get('csrf') ?? '');
  const want = Buffer.from(expected);
  if (want.length === 0 || given.length !== want.length || !timingSafeEqual(given, want)) throw new GatewayError('csrf_failed');
}

/** An application/x-www-form-urlencoded body; 400 for anything else (the console's forms send nothing else). */
export function formBody(ctx: RequestContext): URLSearchParams {
  if (!ctx.contentType.toLowerCase().startsWith('application/x-www-form-urlencoded')) throw new GatewayError('invalid_request', 'expected a form (application/x-www-form-urlencoded)');
  return new URLSearchParams((ctx.rawBody ?? Buffer.alloc(0)).toString('utf8'));
}
