import { timingSafeEqual } from 'node:crypto';
import { GatewayError } from '../../errors.js';
import type { Authenticator } from '../../identity/auth/authenticate.js';
import { SESSION_COOKIE, cookieValue } from '../../http/cookies.js';
import type { RequestContext } from '../../http/request-context.js';
import type { Viewer } from './pages/layout.js';
import type { SessionRepository } from '../../storage/repositories.js';

/**
 * The console's signed-in person, from the session cookie: a login session only (a PAT never rides in a cookie).
 * Null when there is no usable session (missing, forged, expired, revoked, disabled user): the page sends them to sign
 * in.
 */
export function consoleViewer(ctx: RequestContext, authenticator: Authenticator, sessions: SessionRepository): (Viewer & { token: string }) | null {
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
