import { describe, expect, it } from 'vitest';
import { parseCsp, scriptSources } from '../src/parse/csp.js';
import { isAllowed, namesAgent, parseRobotsTxt } from '../src/parse/robots-txt.js';
import { parseSetCookie } from '../src/parse/set-cookie.js';

describe('robots.txt parser (RFC 9309)', () => {
  const robots = parseRobotsTxt(`# comment
User-agent: GPTBot
User-agent: CCBot
Disallow: /

User-agent: *
Disallow: /private
Allow: /private/open
Disallow: /*.pdf$
Sitemap: https://a.example/sitemap.xml
Content-Signal: ai-train=no
`);

  it('groups consecutive user-agent lines and applies the specific group over *', () => {
    expect(isAllowed(robots, 'GPTBot', '/')).toBe(false);
    expect(isAllowed(robots, 'ccbot', '/x')).toBe(false);
    expect(isAllowed(robots, 'Googlebot', '/')).toBe(true);
    expect(namesAgent(robots, 'gptbot')).toBe(true);
    expect(namesAgent(robots, 'ClaudeBot')).toBe(false);
  });

  it('longest match wins, allow wins ties, * and $ wildcards', () => {
    expect(isAllowed(robots, 'x', '/private/a')).toBe(false);
    expect(isAllowed(robots, 'x', '/private/open/a')).toBe(true);
    expect(isAllowed(robots, 'x', '/docs/a.pdf')).toBe(false);
    expect(isAllowed(robots, 'x', '/docs/a.pdf?x=1')).toBe(true);
  });

  it('keeps sitemaps, content signals and invalid lines', () => {
    expect(robots.sitemaps).toEqual(['https://a.example/sitemap.xml']);
    expect(robots.contentSignals).toEqual(['Content-Signal: ai-train=no']);
    expect(robots.invalidLines).toEqual([]);
    expect(parseRobotsTxt('Disallow: /x\nfoo bar\n').invalidLines.map((l) => l.line)).toEqual([1, 2]);
  });
});

describe('CSP parser', () => {
  it('splits policies and directives, keeps the first of a repeated directive, falls back to default-src', () => {
    const [p1, p2] = parseCsp("default-src 'self'; script-src 'SELF' https://cdn.example; script-src *, img-src 'none'");
    expect(p1?.get('script-src')).toEqual(["'self'", 'https://cdn.example']);
    expect(p2 && scriptSources(p2)).toBeUndefined();
    expect(scriptSources(parseCsp("default-src 'none'")[0]!)).toEqual(["'none'"]);
  });

  it('skips a directive a browser skips: one with a non-ASCII character (CSP3 parse a serialized policy)', () => {
    const [p] = parseCsp("default-src 'self'; script-src 'self' https://cdn.exämple");
    expect(p && scriptSources(p)).toEqual(["'self'"]);
    expect(p?.has('script-src')).toBe(false);
  });
});

describe('Set-Cookie parser', () => {
  it('reads name, Secure, HttpOnly and SameSite', () => {
    expect(parseSetCookie('sid=abc; Path=/; Secure; HttpOnly; SameSite=Strict')).toEqual({ name: 'sid', secure: true, httpOnly: true, sameSite: 'strict' });
    expect(parseSetCookie('a=b')).toEqual({ name: 'a', secure: false, httpOnly: false, sameSite: '' });
  });

  it('reads attributes case-insensitively, with spaces and values a browser ignores', () => {
    expect(parseSetCookie('SID = abc ;secure; HTTPONLY ; samesite = Lax; Secure=1')).toEqual({ name: 'SID', secure: true, httpOnly: true, sameSite: 'lax' });
  });

  it('takes SameSite as browsers do (RFC 6265bis): a value other than None, Lax or Strict is ignored, so the cookie has none', () => {
    expect(parseSetCookie('sid=abc; Secure; SameSite=Bogus').sameSite).toBe('');
    expect(parseSetCookie('sid=abc; Secure; SameSite').sameSite).toBe('');
  });

  it('takes a pair without "=" as a nameless cookie with that value, as browsers do', () => {
    expect(parseSetCookie('abc; Secure').name).toBe('');
  });
});
