import { describe, expect, it } from 'vitest';
import { manifestUrl, robotsSitemapUrl } from '../../src/collect/page-links.js';

describe('manifestUrl', () => {
  const page = 'https://example.org/dir/page.html';

  it.each([
    ['<link rel="manifest" href="/site.webmanifest">', 'https://example.org/site.webmanifest'],
    ["<LINK HREF='m.json' REL='Manifest'>", 'https://example.org/dir/m.json'],
    ['<link rel=manifest href=/a.json?x=1&amp;y=2>', 'https://example.org/a.json?x=1&y=2'],
    ['<link rel="preload stylesheet"><link rel="icon manifest" href="https://cdn.example.net/m.json">', 'https://cdn.example.net/m.json'],
  ])('finds %s', (html, expected) => {
    expect(manifestUrl(html, page)).toBe(expected);
  });

  it.each([
    '<link rel="stylesheet" href="/a.css">',
    '<link rel="manifest">',
    '<link rel="manifest" href="">',
    '<a rel="manifest" href="/m.json">',
    '<link rel="manifests" href="/m.json">',
  ])('finds nothing in %s', (html) => {
    expect(manifestUrl(html, page)).toBeUndefined();
  });
});

describe('robotsSitemapUrl', () => {
  it('takes the first Sitemap: line, case-insensitively, resolved against robots.txt', () => {
    expect(robotsSitemapUrl('User-agent: *\nDisallow:\nsitemap: https://example.org/s1.xml\nSitemap: /s2.xml\n', 'https://example.org/robots.txt')).toBe(
      'https://example.org/s1.xml',
    );
    expect(robotsSitemapUrl('  SITEMAP :/maps/index.xml', 'https://example.org/robots.txt')).toBe('https://example.org/maps/index.xml');
  });

  it('returns undefined without one', () => {
    expect(robotsSitemapUrl('User-agent: *\n# Sitemap: commented out? no, a comment line\nDisallow: /sitemap\n', 'https://example.org/robots.txt')).toBeUndefined();
  });
});
