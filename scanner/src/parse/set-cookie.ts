/** A Set-Cookie header reduced to what the cookie checks judge (RFC 6265bis attributes). */
export interface SetCookie {
  readonly name: string;
  readonly secure: boolean;
  readonly httpOnly: boolean;
  /** Lower-case SameSite value, '' when absent. */
  readonly sameSite: string;
}

export function parseSetCookie(header: string): SetCookie {
  const [pair = '', ...attrs] = header.split(';');
  const name = pair.split('=')[0]?.trim() ?? '';
  let secure = false;
  let httpOnly = false;
  let sameSite = '';
  for (const attr of attrs) {
    const [k = '', v = ''] = attr.split('=');
    const key = k.trim().toLowerCase();
    if (key === 'secure') secure = true;
    else if (key === 'httponly') httpOnly = true;
    else if (key === 'samesite') sameSite = v.trim().toLowerCase();
  }
  return { name, secure, httpOnly, sameSite };
}
