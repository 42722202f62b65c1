import { describe, expect, it } from 'vitest';
import { GOOD_HEADERS, GOOD_HTML } from './fixtures/pages.js';
import { goodSnapshot, page, probe } from './fixtures/snapshots.js';
import { runOne } from './run-one.js';

const replaced = (from: string | RegExp, to: string) => goodSnapshot({ page: page(GOOD_HTML.replace(from, to), GOOD_HEADERS) });
const LD = /<script type="application\/ld\+json">.*<\/script>/;

describe('aiDiscovery checks', () => {
  it('llms.txt: served as text passes; 404 or an HTML 200 fails', () => {
    expect(runOne('aiDiscovery.llms-txt', goodSnapshot()).status).toBe('pass');
    expect(runOne('aiDiscovery.llms-txt', goodSnapshot({ llmsTxt: probe('/llms.txt', 404) })).finding?.evidence).toContain('answered 404');
    expect(runOne('aiDiscovery.llms-txt', goodSnapshot({ llmsTxt: probe('/llms.txt', 200, '<!doctype html><p>soft 404', 'text/html') })).finding?.evidence).toContain('HTML');
  });

  it('structured data: Organization/WebSite consistent with the page passes', () => {
    expect(runOne('aiDiscovery.structured-data', goodSnapshot()).evidence).toContain('Organization, WebSite');
  });

  it('structured data: FAQPage or HowTo alone earns nothing (not rewarded)', () => {
    const r = runOne('aiDiscovery.structured-data', replaced(LD, '<script type="application/ld+json">{"@context":"https://schema.org","@type":"FAQPage","mainEntity":[]}</script>'));
    expect(r.status).toBe('fail');
    expect(r.finding?.evidence).toMatch(/FAQPage no longer earns rich results and is not counted/);
  });

  it('structured data: a Product name absent from the visible content is inconsistent', () => {
    const r = runOne('aiDiscovery.structured-data', replaced(LD, '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Chaleira elétrica 2000"}</script>'));
    expect(r.finding?.title).toBe('Structured data does not match the visible content');
    expect(r.finding?.evidence).toContain('Product.name "Chaleira elétrica 2000"');
  });

  it('structured data: a name matches the visible text whatever its case, whitespace and compatibility forms', () => {
    const html = GOOD_HTML.replace(LD, '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"CHALEIRA\\u00a0 elétrica\\n2000"}</script>').replace(
      '</body>',
      '<p>Chaleira \t  Elétrica ２０００</p></body>',
    );
    expect(runOne('aiDiscovery.structured-data', goodSnapshot({ page: page(html, GOOD_HEADERS) })).status).toBe('pass');
  });

  it('AI crawlers: reports every bot; blocking training bots is a choice, blocking answer engines is scored', () => {
    const good = runOne('aiDiscovery.ai-crawlers', goodSnapshot());
    expect(good.status).toBe('pass');
    expect(good.evidence).toContain('GPTBot: blocked');
    expect(good.evidence).toContain('OAI-SearchBot: allowed');
    expect(good.evidence).toContain('ClaudeBot: allowed');
    const blocked = runOne('aiDiscovery.ai-crawlers', goodSnapshot({ robotsTxt: probe('/robots.txt', 200, 'User-agent: PerplexityBot\nDisallow: /\n\nUser-agent: Claude-SearchBot\nDisallow: /\n') }));
    expect(blocked.status).toBe('fail');
    expect(blocked.finding?.evidence).toContain('PerplexityBot: blocked');
    expect(blocked.finding?.evidence).toContain('Claude-SearchBot: blocked');
    expect(blocked.score).toBeCloseTo(4 / 6);
  });

  it('semantic headings: a skipped level is reported', () => {
    const r = runOne('aiDiscovery.semantic-headings', replaced('<h2>Como trabalhamos</h2>', '<h4>Como trabalhamos</h4>'));
    expect(r.finding?.evidence).toContain('h1 followed by h4 "Como trabalhamos"');
  });
});
