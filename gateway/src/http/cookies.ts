/** The console's cookie names (docs/authentication.md, "Console"). */
export const SESSION_COOKIE = 'aduana_session';
export const OIDC_FLOW_COOKIE = 'aduana_oidc_flow';
export const LOGIN_CSRF_COOKIE = 'aduana_login_csrf';

/** One cookie's value from a Cookie header, '' when absent. No allocation of a map: a request reads one or two. */
export function cookieValue(header: string, name: string): string {
  if (!header) return '';
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return '';
}

export interface CookieOptions {
  /** Seconds; 0 deletes the cookie. */
  maxAge: number;
  path: string;
  /** Strict for the session; Lax only for the sign-in flow, which must come back from the provider's site. */
  sameSite: 'Strict' | 'Lax';
  secure: boolean;
}

/** A Set-Cookie value: always HttpOnly (no script reads these). */
export function setCookie(name: string, value: string, o: CookieOptions): string {
  return `${name}=${value}; Path=${o.path}; Max-Age=${o.maxAge}; HttpOnly; SameSite=${o.sameSite}${o.secure ? '; Secure' : ''}`;
}
