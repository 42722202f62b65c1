import { parseSetCookie } from 'cookie';
import { describe, expect, it } from 'vitest';
import { cookieValue, SESSION_COOKIE, setCookie } from './cookies.js';

describe('console cookies', () => {
  it('reads one cookie among several: spaces around pairs, the first of a repeated name, empty when absent', () => {
    const header = `theme=dark;  ${SESSION_COOKIE}=adu_ses_abc ; other=1; ${SESSION_COOKIE}=second`;
    expect(cookieValue(header, SESSION_COOKIE)).toBe('adu_ses_abc');
    expect(cookieValue(header, 'missing')).toBe('');
    expect(cookieValue('', SESSION_COOKIE)).toBe('');
    expect(cookieValue('novalue; theme=dark', 'theme')).toBe('dark');
  });

  it('writes a Set-Cookie with exactly the attributes asked for, HttpOnly always', () => {
    const header = setCookie(SESSION_COOKIE, 'adu_ses_abc', { maxAge: 3600, path: '/', sameSite: 'Strict', secure: true });
    expect(parseSetCookie(header)).toEqual({ name: SESSION_COOKIE, value: 'adu_ses_abc', maxAge: 3600, path: '/', httpOnly: true, sameSite: 'strict', secure: true });
  });

  it('cannot be made to write an attribute through the value', () => {
    const header = setCookie(SESSION_COOKIE, 'x; Domain=evil.example; SameSite=None', { maxAge: 60, path: '/', sameSite: 'Strict', secure: false });
    const parsed = parseSetCookie(header);
    expect(parsed.domain).toBeUndefined();
    expect(parsed.sameSite).toBe('strict');
    expect(parsed.value).toBe('x; Domain=evil.example; SameSite=None');
  });
});
