import { parseSetCookie as parseWithLibrary } from 'cookie';

/** A Set-Cookie header reduced to what the cookie checks judge (RFC 6265bis attributes). */
export interface SetCookie {
  readonly name: string;
  readonly secure: boolean;
  readonly httpOnly: boolean;
  /** Lower-case SameSite value (none, lax or strict), '' when absent or one a browser ignores. */
  readonly sameSite: string;
}

/** Read as a browser reads it (the cookie library): a pair without "=" is a nameless cookie, an unknown SameSite is none. */
export function parseSetCookie(header: string): SetCookie {
  const c = parseWithLibrary(header);
  return { name: c.name, secure: c.secure === true, httpOnly: c.httpOnly === true, sameSite: typeof c.sameSite === 'string' ? c.sameSite : '' };
}
