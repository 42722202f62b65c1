import { describe, expect, it } from 'vitest';
import { GOOD_HEADERS, GOOD_HTML } from './fixtures/pages.js';
import { goodSnapshot, page } from './fixtures/snapshots.js';
import { runOne } from './run-one.js';

const withPage = (extra: Parameters<typeof page>[2], html = GOOD_HTML, headers = GOOD_HEADERS) => goodSnapshot({ page: page(html, headers, extra) });

describe('performance checks (static signals)', () => {
  it('TTFB: <= 800 ms passes, 800-1800 partial, above poor (web.dev thresholds)', () => {
    expect(runOne('performance.ttfb', withPage({ ttfbMs: 800 })).status).toBe('pass');
    const mid = runOne('performance.ttfb', withPage({ ttfbMs: 1200 }));
    expect([mid.status, mid.score, mid.finding?.severity]).toEqual(['fail', 0.5, 'Low']);
    const poor = runOne('performance.ttfb', withPage({ ttfbMs: 2400 }));
    expect(poor.finding?.severity).toBe('Medium');
    expect(poor.finding?.evidence).toContain('2400 ms');
  });

  it('HTML weight: a 600 KiB document fails Medium', () => {
    const big = `${GOOD_HTML}<!--${'x'.repeat(600 * 1024)}-->`;
    const r = runOne('performance.html-weight', withPage({}, big));
    expect(r.finding?.severity).toBe('Medium');
    expect(r.finding?.evidence).toMatch(/60\d KiB decoded/);
  });

  it('compression: an uncompressed HTML response above 1.4 KB fails; tiny ones are not judged', () => {
    const r = runOne('performance.compression', withPage({ contentEncoding: '' }));
    expect(r.finding?.title).toBe('Text response is not compressed');
    expect(runOne('performance.compression', withPage({ contentEncoding: '' }, '<p>hi</p>')).status).toBe('not_applicable');
    expect(runOne('performance.compression', withPage({ contentEncoding: 'gzip' })).status).toBe('pass');
  });

  it('cache headers: needs Cache-Control and a validator', () => {
    expect(runOne('performance.cache-headers', goodSnapshot()).evidence).toContain('Cache-Control: "no-cache"');
    const headers = { ...GOOD_HEADERS };
    delete headers['etag'];
    const r = runOne('performance.cache-headers', withPage({}, GOOD_HTML, headers));
    expect([r.score, r.finding?.evidence]).toEqual([0.5, 'Missing ETag or Last-Modified; Cache-Control: "no-cache".']);
  });

  it('render-blocking: a classic script in <head> without defer fails; defer/async/module pass', () => {
    const blocking = runOne('performance.render-blocking', withPage({}, GOOD_HTML.replace('<script src="/app.js" defer>', '<script src="/app.js">')));
    expect(blocking.finding?.evidence).toContain('1 blocking script(s) in <head>: /app.js');
    expect(runOne('performance.render-blocking', withPage({}, GOOD_HTML.replace('defer', 'async'))).status).toBe('pass');
    expect(runOne('performance.render-blocking', withPage({}, GOOD_HTML.replace('defer', 'type="module"'))).status).toBe('pass');
  });
});
