import { load, type CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { parseHtmlBounded } from '../parse/bounded-html.js';
import { parseCsp, type CspPolicy } from '../parse/csp.js';
import { parseJsonLd, type JsonLdBlock } from '../parse/json-ld.js';
import { parseRobotsTxt, type RobotsTxt } from '../parse/robots-txt.js';
import type { PageProbe, Probe } from '../snapshot/snapshot.js';
import { DEFAULT_JUDGING_LIMITS, JudgingLimitError, type JudgingLimits } from './judging-limits.js';

export interface DocumentIndex {
  readonly all: readonly Element[];
  readonly byTag: ReadonlyMap<string, readonly Element[]>;
}

const NONE: readonly Element[] = Object.freeze([]);

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
/** Elements whose text a reader never sees (script and style are node types of their own in htmlparser2). */
const HIDDEN = new Set(['noscript', 'template', 'svg', 'script', 'style']);

/**
 * Data several checks derive from the same snapshot part, computed once per assessment (the runner makes one Derived
 * per assessment). Each method takes the part it derives from, so a check can only reach what it declared in `needs`.
 */
export class Derived {
  readonly limits: JudgingLimits;
  #html?: CheerioAPI | JudgingLimitError;
  #csp?: readonly CspPolicy[];
  #robots?: RobotsTxt;
  #jsonLd?: readonly JsonLdBlock[];
  #text?: string;
  #index?: DocumentIndex;

  constructor(limits: JudgingLimits = DEFAULT_JUDGING_LIMITS) {
    this.limits = limits;
  }

  isHtml(page: PageProbe): boolean {
    return HTML_TYPES.has(page.contentType) || (page.contentType === '' && /^\s*<(!doctype|html)/i.test(page.body));
  }

  /**
   * The page parsed once. htmlparser2 rather than parse5: several times faster, and the checks need no tree fix-ups.
   * Throws JudgingLimitError (every time it is asked) when the page is over the element or depth cap.
   */
  html(page: PageProbe): CheerioAPI {
    if (this.#html === undefined) {
      try {
        this.#html = load(parseHtmlBounded(this.isHtml(page) ? page.body : '', this.limits), { xml: { xmlMode: false, decodeEntities: true } });
      } catch (err) {
        if (!(err instanceof JudgingLimitError)) throw err;
        this.#html = err;
      }
    }
    if (this.#html instanceof JudgingLimitError) throw this.#html;
    return this.#html;
  }

  /**
   * Every element by tag name, in document order, from one walk of the tree. Checks filter these arrays instead of
   * running CSS selectors: each selector is a full traversal, and 56 checks of several selectors each over a 200 KB
   * page cost more than the parse.
   */
  index(page: PageProbe): DocumentIndex {
    if (!this.#index) {
      const $ = this.html(page);
      const all: Element[] = [];
      const byTag = new Map<string, Element[]>();
      const stack: AnyNode[] = [...($.root().get(0)?.children ?? [])].reverse();
      while (stack.length > 0) {
        const node = stack.pop() as AnyNode;
        if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') continue;
        const el = node as Element;
        all.push(el);
        const list = byTag.get(el.tagName);
        if (list) list.push(el);
        else byTag.set(el.tagName, [el]);
        for (let i = el.children.length - 1; i >= 0; i--) stack.push(el.children[i] as AnyNode);
      }
      this.#index = { all, byTag };
    }
    return this.#index;
  }

  /** Elements with this tag name (lower-case), in document order. */
  tag(page: PageProbe, name: string): readonly Element[] {
    return this.index(page).byTag.get(name) ?? NONE;
  }

  /** Enforced CSP policies: every Content-Security-Policy header, then any <meta http-equiv> policy. */
  csp(page: PageProbe): readonly CspPolicy[] {
    if (!this.#csp) {
      const policies = parseCsp(page.headers['content-security-policy'] ?? '');
      for (const meta of this.tag(page, 'meta')) {
        if ((meta.attribs['http-equiv'] ?? '').toLowerCase() === 'content-security-policy') policies.push(...parseCsp(meta.attribs['content'] ?? ''));
      }
      this.#csp = policies;
    }
    return this.#csp;
  }

  /** robots.txt parsed; an absent (non-200) or HTML answer parses as empty, which allows everything. */
  robots(probe: Probe): RobotsTxt {
    this.#robots ??= parseRobotsTxt(probe.status === 200 && !/^\s*</.test(probe.body) ? probe.body : '', this.limits);
    return this.#robots;
  }

  jsonLd(page: PageProbe): readonly JsonLdBlock[] {
    if (!this.#jsonLd) {
      const $ = this.html(page);
      this.#jsonLd = this.tag(page, 'script')
        .filter((el) => (el.attribs['type'] ?? '').trim().toLowerCase() === 'application/ld+json')
        .map((el) => parseJsonLd($.text([el])));
    }
    return this.#jsonLd;
  }

  /** Text a reader sees without running JavaScript: the body without scripts, styles and templates, spaces collapsed. */
  visibleText(page: PageProbe): string {
    if (this.#text === undefined) {
      // A walk rather than clone-and-remove: cloning a 200 KB body cost more than every check together.
      const start = this.tag(page, 'body')[0] ?? this.html(page).root().get(0);
      const parts: string[] = [];
      const stack: AnyNode[] = start ? [start] : [];
      while (stack.length > 0) {
        const node = stack.pop() as AnyNode;
        if (node.type === 'text') parts.push(node.data);
        else if ((node.type === 'tag' && !HIDDEN.has(node.tagName)) || node.type === 'root') {
          const children = node.children;
          for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as AnyNode);
        }
      }
      this.#text = parts.join('').replace(/\s+/g, ' ').trim();
    }
    return this.#text;
  }
}
