import { describe, expect, it } from 'vitest';
import { GOOD_HEADERS, GOOD_HTML } from './fixtures/pages.js';
import { goodSnapshot, GOOD_TLS, page } from './fixtures/snapshots.js';
import { runOne } from './run-one.js';

const withHeaders = (headers: Record<string, string>, html = GOOD_HTML) => goodSnapshot({ page: page(html, headers) });
const without = (name: string) => {
  const h = { ...GOOD_HEADERS };
  delete h[name];
  return h;
};

describe('security checks (Mozilla HTTP Observatory semantics)', () => {
  it('passes HSTS of two years and quotes it', () => {
    const r = runOne('security.hsts', goodSnapshot());
    expect(r.status).toBe('pass');
    expect(r.evidence).toContain('max-age=63072000');
  });

  it('fails a missing HSTS header, and partially a max-age under six months', () => {
    expect(runOne('security.hsts', withHeaders(without('strict-transport-security'))).finding?.severity).toBe('Medium');
    const short = runOne('security.hsts', withHeaders({ ...GOOD_HEADERS, 'strict-transport-security': 'max-age=86400' }));
    expect(short.status).toBe('fail');
    expect(short.score).toBe(0.5);
    expect(short.finding?.evidence).toContain('max-age=86400');
  });

  it('does not judge HSTS on a plain-HTTP page (security.https does) and fails that page High', () => {
    const http = goodSnapshot({ page: page(GOOD_HTML, GOOD_HEADERS, { finalUrl: 'http://cafe.example/' }) });
    expect(runOne('security.hsts', http).status).toBe('not_applicable');
    const https = runOne('security.https', http);
    expect(https.finding?.severity).toBe('High');
    expect(https.finding?.evidence).toContain('http://cafe.example/');
  });

  it('fails a missing CSP and names Report-Only when only that is sent', () => {
    const r = runOne('security.csp', withHeaders({ ...without('content-security-policy'), 'content-security-policy-report-only': "default-src 'self'" }));
    expect(r.status).toBe('fail');
    expect(r.finding?.evidence).toContain('Report-Only');
  });

  it("fails 'unsafe-inline' and wildcard script sources, but accepts 'unsafe-inline' neutralised by a nonce", () => {
    const inline = runOne('security.csp', withHeaders({ ...GOOD_HEADERS, 'content-security-policy': "default-src 'self'; script-src 'self' 'unsafe-inline'" }));
    expect(inline.status).toBe('fail');
    expect(inline.finding?.evidence).toContain("'unsafe-inline'");
    const wild = runOne('security.csp', withHeaders({ ...GOOD_HEADERS, 'content-security-policy': 'script-src https: *' }));
    expect(wild.finding?.evidence).toMatch(/wildcard script sources/);
    const eval_ = runOne('security.csp', withHeaders({ ...GOOD_HEADERS, 'content-security-policy': "script-src 'self' 'unsafe-eval'" }));
    expect(eval_.finding?.severity).toBe('Low');
    const nonce = runOne('security.csp', withHeaders({ ...GOOD_HEADERS, 'content-security-policy': "script-src 'nonce-abc' 'strict-dynamic' 'unsafe-inline' https:" }));
    expect(nonce.status).toBe('pass');
  });

  it('fails a CSP that restricts nothing about scripts', () => {
    const r = runOne('security.csp', withHeaders({ ...GOOD_HEADERS, 'content-security-policy': "img-src 'self'" }));
    expect(r.finding?.evidence).toContain('no script-src or default-src');
  });

  it('accepts frame-ancestors or X-Frame-Options SAMEORIGIN, fails neither, ignores ALLOW-FROM', () => {
    expect(runOne('security.frame-ancestors', withHeaders({ ...without('x-frame-options') })).status).toBe('pass');
    expect(runOne('security.frame-ancestors', withHeaders({ ...without('content-security-policy') })).status).toBe('pass');
    const none = withHeaders({ ...without('content-security-policy'), 'x-frame-options': 'ALLOW-FROM https://a.example' });
    expect(runOne('security.frame-ancestors', none).status).toBe('fail');
  });

  it('X-Content-Type-Options must be nosniff', () => {
    expect(runOne('security.x-content-type-options', goodSnapshot()).status).toBe('pass');
    const bad = runOne('security.x-content-type-options', withHeaders({ ...GOOD_HEADERS, 'x-content-type-options': 'sniff' }));
    expect(bad.finding?.evidence).toContain('"sniff"');
  });

  it('Referrer-Policy: missing is Informational (browser default), unsafe-url fails, last known value wins', () => {
    const missing = runOne('security.referrer-policy', withHeaders(without('referrer-policy')));
    expect(missing.status).toBe('info');
    expect(missing.score).toBeNull();
    expect(runOne('security.referrer-policy', withHeaders({ ...GOOD_HEADERS, 'referrer-policy': 'unsafe-url' })).status).toBe('fail');
    expect(runOne('security.referrer-policy', withHeaders({ ...GOOD_HEADERS, 'referrer-policy': 'unsafe-url, strict-origin' })).status).toBe('pass');
  });

  it('Permissions-Policy missing is a Low finding', () => {
    expect(runOne('security.permissions-policy', withHeaders(without('permissions-policy'))).finding?.severity).toBe('Low');
  });

  it('cookies: Secure, HttpOnly on session cookies, SameSite', () => {
    const snap = (cookies: string[]) => goodSnapshot({ page: page(GOOD_HTML, GOOD_HEADERS, { setCookies: cookies }) });
    expect(runOne('security.cookies', goodSnapshot()).status).toBe('not_applicable');
    expect(runOne('security.cookies', snap(['sid=1; Secure; HttpOnly; SameSite=Lax'])).status).toBe('pass');
    const bad = runOne('security.cookies', snap(['sessionid=1; Path=/']));
    expect(bad.finding?.severity).toBe('Medium');
    expect(bad.finding?.evidence).toContain('sessionid: missing Secure, HttpOnly, SameSite');
    // Observatory does not penalise a missing SameSite alone (browsers default to Lax): told, not scored.
    const lax = runOne('security.cookies', snap(['theme=dark; Secure']));
    expect([lax.status, lax.score, lax.finding?.severity]).toEqual(['info', null, 'Informational']);
    expect(lax.finding?.evidence).toContain('theme');
  });

  it('http -> https redirect: passes a 301 to https, and a closed port 80; fails a 200 on http', () => {
    expect(runOne('security.https-redirect', goodSnapshot()).status).toBe('pass');
    const none = { url: 'http://cafe.example/', redirectsToHttps: false, status: null, location: null, error: 'refused' };
    expect(runOne('security.https-redirect', goodSnapshot({ httpsRedirect: none })).status).toBe('pass');
    const stays = runOne('security.https-redirect', goodSnapshot({ httpsRedirect: { url: 'http://cafe.example/', redirectsToHttps: false, status: 200, location: null } }));
    expect(stays.status).toBe('fail');
    expect(stays.finding?.evidence).toContain('answered 200');
  });

  it('certificate: untrusted or expired is High, expiring soon Medium', () => {
    const untrusted = runOne('security.certificate', goodSnapshot({ tls: { ...GOOD_TLS, authorized: false, authorizationError: 'DEPTH_ZERO_SELF_SIGNED_CERT' } }));
    expect(untrusted.finding?.severity).toBe('High');
    expect(untrusted.finding?.evidence).toContain('DEPTH_ZERO_SELF_SIGNED_CERT');
    expect(runOne('security.certificate', goodSnapshot({ tls: { ...GOOD_TLS, daysRemaining: -2 } })).finding?.title).toMatch(/expired/);
    expect(runOne('security.certificate', goodSnapshot({ tls: { ...GOOD_TLS, daysRemaining: 5 } })).finding?.severity).toBe('Medium');
  });

  it('certificate: a TLS probe with no handshake is not measured', () => {
    const r = runOne('security.certificate', goodSnapshot({ tls: { ...GOOD_TLS, authorized: false, error: 'timeout' } }));
    expect(r.status).toBe('not_measured');
  });

  it('mixed content: an http:// script is High, an http:// image Low', () => {
    const script = runOne('security.mixed-content', withHeaders(GOOD_HEADERS, GOOD_HTML.replace('</body>', '<script src="http://cdn.example/x.js"></script></body>')));
    expect(script.finding?.severity).toBe('High');
    expect(script.finding?.evidence).toContain('http://cdn.example/x.js');
    const img = runOne('security.mixed-content', withHeaders(GOOD_HEADERS, GOOD_HTML.replace('</body>', '<img src="http://cdn.example/x.png" alt="x"></body>')));
    expect(img.finding?.severity).toBe('Low');
  });

  it('SRI: third-party scripts without integrity fail; same-origin scripts are not counted', () => {
    expect(runOne('security.sri', goodSnapshot()).status).toBe('not_applicable');
    const html = GOOD_HTML.replace('</body>', '<script src="https://cdn.other.example/lib.js"></script><script src="https://cdn.other.example/ok.js" integrity="sha384-x"></script></body>');
    const r = runOne('security.sri', withHeaders(GOOD_HEADERS, html));
    expect(r.status).toBe('fail');
    expect(r.score).toBe(0.5);
    expect(r.finding?.evidence).toContain('https://cdn.other.example/lib.js');
  });

  it('security.txt needs Contact and a future Expires (RFC 9116)', () => {
    expect(runOne('security.security-txt', goodSnapshot()).status).toBe('pass');
    const snap = goodSnapshot();
    const stale = { ...snap, securityTxt: { ...snap.securityTxt!, body: 'Contact: mailto:a@b.example\nExpires: 2001-01-01T00:00:00Z\n' } };
    expect(runOne('security.security-txt', stale).finding?.evidence).toContain('in the past');
  });

  it('version disclosure quotes the Server and X-Powered-By values; a bare product name is fine', () => {
    const r = runOne('security.version-disclosure', withHeaders({ ...GOOD_HEADERS, server: 'nginx/1.18.0', 'x-powered-by': 'Express' }));
    expect(r.finding?.evidence).toContain('server: "nginx/1.18.0"');
    expect(r.finding?.evidence).toContain('x-powered-by: "Express"');
    expect(runOne('security.version-disclosure', withHeaders({ ...GOOD_HEADERS, server: 'nginx' })).status).toBe('pass');
  });

  describe('security.form-action: forms whose action leaves HTTPS', () => {
    const form = (action: string, fields: string) => GOOD_HTML.replace('</body>', `<form action="${action}" method="post">${fields}<button>Send</button></form></body>`);
    const CARD = '<input name="card_number" autocomplete="cc-number"><input name="cvc">';

    it('a card form posting to http:// is High and names the action', () => {
      const r = runOne('security.form-action', withHeaders(GOOD_HEADERS, form('http://pay.example/charge', CARD)));
      expect(r.status).toBe('fail');
      expect(r.finding?.severity).toBe('High');
      expect(r.finding?.evidence).toContain('http://pay.example/charge');
    });

    it('a password or personal-data form is High; a form without such fields is Medium', () => {
      expect(runOne('security.form-action', withHeaders(GOOD_HEADERS, form('http://cafe.example/login', '<input type="password" name="p">'))).finding?.severity).toBe('High');
      expect(runOne('security.form-action', withHeaders(GOOD_HEADERS, form('http://cafe.example/news', '<input type="email" name="e">'))).finding?.severity).toBe('High');
      const search = runOne('security.form-action', withHeaders(GOOD_HEADERS, form('http://cafe.example/search', '<input type="search" name="q">')));
      expect(search.finding?.severity).toBe('Medium');
      expect(search.finding?.evidence).toContain('http://cafe.example/search');
    });

    it('an https action that redirects to http:// is a finding naming both', () => {
      const snap = goodSnapshot({
        page: page(form('https://cafe.example/checkout', CARD)),
        formActions: [{ url: 'https://cafe.example/checkout', status: 302, location: 'http://cafe.example/checkout' }],
      });
      const r = runOne('security.form-action', snap);
      expect(r.finding?.severity).toBe('High');
      expect(r.finding?.evidence).toContain('https://cafe.example/checkout → http://cafe.example/checkout');
    });

    it('passes when every action stays on HTTPS (relative actions included), and does not apply to an http page', () => {
      expect(runOne('security.form-action', withHeaders(GOOD_HEADERS, form('/checkout', CARD))).status).toBe('pass');
      expect(runOne('security.form-action', goodSnapshot({ page: page(form('https://cafe.example/checkout', CARD)), formActions: [{ url: 'https://cafe.example/checkout', status: 200, location: null }] })).status).toBe('pass');
      const plain = goodSnapshot({ page: page(form('http://cafe.example/x', CARD), GOOD_HEADERS, { finalUrl: 'http://cafe.example/' }) });
      expect(runOne('security.form-action', plain).status).toBe('not_applicable');
    });
  });
});
