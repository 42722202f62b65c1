import { describe, expect, it } from 'vitest';
import { GOOD_HEADERS, GOOD_HTML } from './fixtures/pages.js';
import { goodSnapshot, page, probe } from './fixtures/snapshots.js';
import { runOne } from './run-one.js';

const html = (markup: string, headers = GOOD_HEADERS) => goodSnapshot({ page: page(markup, headers) });
const replaced = (from: string | RegExp, to: string) => html(GOOD_HTML.replace(from, to));

describe('seo checks (Lighthouse SEO semantics where they overlap)', () => {
  it('title: missing is Medium, present quotes it', () => {
    expect(runOne('seo.title', goodSnapshot()).evidence).toContain('<title>Aduana Café: cafés especiais torrados</title>');
    expect(runOne('seo.title', replaced(/<title>.*<\/title>/, '<title> </title>')).finding?.severity).toBe('Medium');
  });

  it('meta description: missing or empty fails', () => {
    expect(runOne('seo.meta-description', replaced(/<meta name="description"[^>]*>/, '<meta name="description" content="">')).finding?.evidence).toContain('empty');
  });

  it('canonical: none is Informational (Lighthouse does not fail it); relative, conflicting and root-from-deep fail', () => {
    expect(runOne('seo.canonical', replaced(/<link rel="canonical"[^>]*>/, '')).status).toBe('info');
    expect(runOne('seo.canonical', replaced(/<link rel="canonical"[^>]*>/, '<link rel="canonical" href="/page">')).finding?.title).toMatch(/not a valid absolute URL/);
    expect(runOne('seo.canonical', replaced('<link rel="canonical" href="https://cafe.example/">', '<link rel="canonical" href="https://cafe.example/"><link rel="canonical" href="https://cafe.example/b">')).finding?.title).toMatch(/Conflicting/);
    const deep = goodSnapshot({ page: page(GOOD_HTML, GOOD_HEADERS, { finalUrl: 'https://cafe.example/blog/post' }) });
    expect(runOne('seo.canonical', deep).finding?.title).toMatch(/root/);
  });

  it('h1: exactly one; none is Medium, several Low', () => {
    expect(runOne('seo.h1', goodSnapshot()).status).toBe('pass');
    expect(runOne('seo.h1', replaced(/<h1>.*<\/h1>/, '')).finding?.severity).toBe('Medium');
    expect(runOne('seo.h1', replaced('<h2>Como trabalhamos</h2>', '<h1>Outro</h1>')).finding?.severity).toBe('Low');
  });

  it('lang: html lang or Content-Language', () => {
    expect(runOne('seo.lang', replaced('<html lang="pt-BR">', '<html>')).status).toBe('fail');
    expect(runOne('seo.lang', html(GOOD_HTML.replace('<html lang="pt-BR">', '<html>'), { ...GOOD_HEADERS, 'content-language': 'pt-BR' })).status).toBe('pass');
  });

  it('indexable: noindex in meta or X-Robots-Tag, or a robots.txt Disallow, is High', () => {
    expect(runOne('seo.indexable', goodSnapshot()).status).toBe('pass');
    const meta = runOne('seo.indexable', replaced('</head>', '<meta name="robots" content="noindex, follow"></head>'));
    expect(meta.finding?.severity).toBe('High');
    expect(meta.finding?.evidence).toContain('content="noindex, follow"');
    expect(runOne('seo.indexable', html(GOOD_HTML, { ...GOOD_HEADERS, 'x-robots-tag': 'noindex' })).status).toBe('fail');
    expect(runOne('seo.indexable', html(GOOD_HTML, { ...GOOD_HEADERS, 'x-robots-tag': 'otherbot: noindex' })).status).toBe('pass');
    const robots = goodSnapshot({ robotsTxt: probe('/robots.txt', 200, 'User-agent: *\nDisallow: /\n') });
    expect(runOne('seo.indexable', robots).finding?.evidence).toContain('robots.txt disallows /');
  });

  it('robots.txt: 404 is Informational, 5xx High, HTML or unknown directives fail', () => {
    expect(runOne('seo.robots-txt', goodSnapshot()).status).toBe('pass');
    expect(runOne('seo.robots-txt', goodSnapshot({ robotsTxt: probe('/robots.txt', 404) })).status).toBe('info');
    expect(runOne('seo.robots-txt', goodSnapshot({ robotsTxt: probe('/robots.txt', 503) })).finding?.severity).toBe('High');
    expect(runOne('seo.robots-txt', goodSnapshot({ robotsTxt: probe('/robots.txt', 200, '<html>hi</html>', 'text/html') })).status).toBe('fail');
    const invalid = runOne('seo.robots-txt', goodSnapshot({ robotsTxt: probe('/robots.txt', 200, 'User-agent: *\nDisalow: /x\n') }));
    expect(invalid.finding?.evidence).toContain('line 2: "Disalow: /x"');
  });

  it('sitemap: XML urlset passes; 404 fails for content, is only Informational for an api', () => {
    expect(runOne('seo.sitemap', goodSnapshot()).evidence).toContain('1 <loc> entry');
    const missing = goodSnapshot({ sitemapXml: probe('/sitemap.xml', 404) });
    expect(runOne('seo.sitemap', missing).status).toBe('fail');
    expect(runOne('seo.sitemap', missing, 'api').status).toBe('info');
  });

  it('hreflang: absent is Informational only; invalid codes or relative hrefs fail', () => {
    const absent = runOne('seo.hreflang', goodSnapshot());
    expect(absent.status).toBe('info');
    expect(absent.finding?.severity).toBe('Informational');
    expect(runOne('seo.hreflang', replaced('</head>', '<link rel="alternate" hreflang="en" href="https://cafe.example/en/"></head>')).status).toBe('pass');
    expect(runOne('seo.hreflang', replaced('</head>', '<link rel="alternate" hreflang="english" href="/en/"></head>')).status).toBe('fail');
  });

  it('Open Graph: lists the missing properties', () => {
    const r = runOne('seo.open-graph', replaced(/<meta property="og:image"[^>]*>/, ''));
    expect(r.finding?.evidence).toContain('Missing: og:image');
    expect(r.score).toBe(0.75);
  });

  it('JSON-LD: an unparseable block is Medium and quotes it', () => {
    const r = runOne('seo.json-ld', replaced('</head>', '<script type="application/ld+json">{"@context": "https://schema.org", </script></head>'));
    expect(r.finding?.severity).toBe('Medium');
    expect(r.finding?.evidence).toContain('{"@context": "https://schema.org",');
  });

  it('http status: a 404 page is High', () => {
    expect(runOne('seo.http-status', goodSnapshot({ page: page(GOOD_HTML, GOOD_HEADERS, { status: 404 }) })).finding?.severity).toBe('High');
  });

  it('crawlable links: javascript: hrefs fail', () => {
    const r = runOne('seo.crawlable-links', replaced('<a href="/sobre">Sobre</a>', '<a href="javascript:void(0)">Sobre</a>'));
    expect(r.finding?.evidence).toContain('javascript:void(0)');
  });

  it('link text: generic texts like "clique aqui" fail (Lighthouse link-text)', () => {
    expect(runOne('seo.link-text', goodSnapshot()).status).toBe('pass');
    const r = runOne('seo.link-text', replaced('<a href="/sobre">Sobre</a>', '<a href="/sobre">Clique aqui</a>'));
    expect(r.finding?.evidence).toContain('<a href="/sobre">Clique aqui</a>');
  });
});
