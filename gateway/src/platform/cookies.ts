import { parseCookie, stringifySetCookie } from 'cookie';

/** The console's cookie names (docs/authentication.md, "Console"). */
export const SESSION_COOKIE = 'aduana_session';
export const OIDC_FLOW_COOKIE = 'aduana_oidc_flow';
export const LOGIN_CSRF_COOKIE = 'aduana_login_csrf';
/** The browser's device cookie: which accounts signed in from it (identity/sessions/device-cookies.ts). */
export const DEVICE_COOKIE = 'aduana_device';

/** One cookie's value from a Cookie header (the first of a repeated name), '' when absent. */
export function cookieValue(header: string, name: string): string {
  return header ? (parseCookie(header)[name] ?? '') : '';
}

export interface CookieOptions {
  /** Seconds; 0 deletes the cookie. */
  maxAge: number;
  path: string;
  /** Strict for the session; Lax only for the sign-in flow, which must come back from the provider's site. */
  sameSite: 'Strict' | 'Lax';
  secure: boolean;
}

/** A Set-Cookie value: always HttpOnly (no script reads these). The library encodes a value that would end the pair. */
export function setCookie(name: string, value: string, o: CookieOptions): string {
  return stringifySetCookie({ name, value, path: o.path, maxAge: o.maxAge, httpOnly: true, sameSite: o.sameSite === 'Strict' ? 'strict' : 'lax', secure: o.secure });
}
