import { Parser } from 'htmlparser2';

/** What the crawl reads from one HTML page. */
export interface PageFacts {
  readonly title: string | null;
  readonly metaDescription: string | null;
  /** Every `<link rel=canonical href>` value, raw, in document order. */
  readonly canonicals: readonly string[];
  readonly h1: readonly string[];
  readonly noindex: boolean;
  readonly wordCount: number;
  /** Raw `<a href>` values, in document order. */
  readonly links: readonly string[];
}

export interface PageFactsBounds {
  /** Links read from one page; later ones are ignored. */
  readonly maxLinks: number;
  /** Longest title, description or heading kept; longer ones are cut with "…". */
  readonly maxTextChars: number;
}

const SILENT = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'svg']);
const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;

/**
 * One streaming pass of htmlparser2 over the page: no tree is built, so a deep or huge page costs only its length.
 * Words are counted in text outside head, scripts and styles, as a reader sees them without JavaScript.
 */
export function readPageFacts(html: string, bounds: PageFactsBounds): PageFacts {
  let title: string | null = null;
  let metaDescription: string | null = null;
  let noindex = false;
  let wordCount = 0;
  const canonicals: string[] = [];
  const h1: string[] = [];
  const links: string[] = [];
  const open: string[] = [];
  let silent = 0;
  let titleText: string | null = null;
  let h1Text: string | null = null;
  const cut = (text: string): string => {
    const clean = text.replace(/\s+/g, ' ').trim();
    return clean.length > bounds.maxTextChars ? `${clean.slice(0, bounds.maxTextChars - 1)}…` : clean;
  };
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        open.push(name);
        if (SILENT.has(name)) silent++;
        if (name === 'title' && title === null) titleText = '';
        else if (name === 'h1') h1Text = '';
        else if (name === 'meta') {
          const metaName = (attribs.name ?? '').toLowerCase();
          const content = attribs.content ?? '';
          if (metaName === 'description' && metaDescription === null) metaDescription = cut(content);
          if ((metaName === 'robots' || metaName === 'aduana-scanner') && /\bnoindex\b|\bnone\b/i.test(content)) noindex = true;
        } else if (name === 'link') {
          const rel = (attribs.rel ?? '').toLowerCase().split(/\s+/);
          if (rel.includes('canonical') && attribs.href !== undefined) canonicals.push(attribs.href);
        } else if (name === 'a' && attribs.href !== undefined && links.length < bounds.maxLinks) {
          links.push(attribs.href);
        }
      },
      ontext(text) {
        if (titleText !== null && titleText.length <= bounds.maxTextChars) titleText += text;
        if (h1Text !== null && h1Text.length <= bounds.maxTextChars) h1Text += text;
        if (silent === 0) wordCount += text.match(WORD)?.length ?? 0;
      },
      onclosetag(name) {
        // htmlparser2 closes implied tags itself, so the stack mirrors its view of the document.
        const index = open.lastIndexOf(name);
        if (index >= 0) open.splice(index);
        if (SILENT.has(name)) silent = Math.max(0, silent - 1);
        if (name === 'title' && titleText !== null) {
          title = cut(titleText);
          titleText = null;
        } else if (name === 'h1' && h1Text !== null) {
          h1.push(cut(h1Text));
          h1Text = null;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return { title, metaDescription, canonicals, h1, noindex, wordCount, links };
}

/** Whether an X-Robots-Tag header value says noindex (for every agent, or for ours). */
export function headerSaysNoindex(value: string | undefined): boolean {
  if (value === undefined) return false;
  return value.split(',').some((part) => {
    const colon = part.indexOf(':');
    const agent = colon > 0 && !/^\s*(noindex|none|index|follow|nofollow)\b/i.test(part) ? part.slice(0, colon).trim().toLowerCase() : '';
    const directives = agent === '' ? part : part.slice(colon + 1);
    return (agent === '' || agent === 'aduana-scanner') && /\bnoindex\b|\bnone\b/i.test(directives);
  });
}
