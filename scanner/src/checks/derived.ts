import { load, type CheerioAPI } from 'cheerio';
import { parseCsp, type CspPolicy } from '../parse/csp.js';
import { parseJsonLd, type JsonLdBlock } from '../parse/json-ld.js';
import { parseRobotsTxt, type RobotsTxt } from '../parse/robots-txt.js';
import type { PageProbe, Probe } from '../snapshot/snapshot.js';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/**
 * Data several checks derive from the same snapshot part, computed once per assessment (the runner makes one Derived
 * per assessment). Each method takes the part it derives from, so a check can only reach what it declared in `needs`.
 */
export class Derived {
  #html?: CheerioAPI;
  #csp?: readonly CspPolicy[];
  #robots?: RobotsTxt;
  #jsonLd?: readonly JsonLdBlock[];
  #text?: string;

  isHtml(page: PageProbe): boolean {
    return HTML_TYPES.has(page.contentType) || (page.contentType === '' && /^\s*<(!doctype|html)/i.test(page.body));
  }

  /** The page parsed once. htmlparser2 rather than parse5: several times faster, and the checks need no tree fix-ups. */
  html(page: PageProbe): CheerioAPI {
    this.#html ??= load(this.isHtml(page) ? page.body : '', { xml: { xmlMode: false, decodeEntities: true } });
    return this.#html;
  }

  /** Enforced CSP policies: every Content-Security-Policy header, then any <meta http-equiv> policy. */
  csp(page: PageProbe): readonly CspPolicy[] {
    if (!this.#csp) {
      const policies = parseCsp(page.headers['content-security-policy'] ?? '');
      const $ = this.html(page);
      $('meta[http-equiv]').each((_, el) => {
        const meta = $(el);
        if ((meta.attr('http-equiv') ?? '').toLowerCase() === 'content-security-policy') {
          policies.push(...parseCsp(meta.attr('content') ?? ''));
        }
      });
      this.#csp = policies;
    }
    return this.#csp;
  }

  /** robots.txt parsed; an absent (non-200) or HTML answer parses as empty, which allows everything. */
  robots(probe: Probe): RobotsTxt {
    this.#robots ??= parseRobotsTxt(probe.status === 200 && !/^\s*</.test(probe.body) ? probe.body : '');
    return this.#robots;
  }

  jsonLd(page: PageProbe): readonly JsonLdBlock[] {
    if (!this.#jsonLd) {
      const $ = this.html(page);
      this.#jsonLd = $('script[type="application/ld+json" i]')
        .toArray()
        .map((el) => parseJsonLd($(el).text()));
    }
    return this.#jsonLd;
  }

  /** Text a reader sees without running JavaScript: the body without scripts, styles and templates, spaces collapsed. */
  visibleText(page: PageProbe): string {
    if (this.#text === undefined) {
      const $ = this.html(page);
      const clone = $('body').length ? $('body').clone() : $.root().children().clone();
      clone.find('script, style, noscript, template, svg').remove();
      this.#text = clone.text().replace(/\s+/g, ' ').trim();
    }
    return this.#text;
  }
}
