/**
 * The two links the collectors must read before fetching: the web manifest named by the page and the first sitemap
 * named by robots.txt. Regexes over the raw text are enough here (the checks parse the page properly, once);
 * only a `<link>` start tag is examined, so nothing in scripts or comments can run.
 */

const LINK_TAG = /<link\b[^>]*>/gi;
// Unquoted values run to whitespace, as in the HTML tokenizer (which also keeps a '=' or quote inside them).
const ATTRIBUTE = /([^\s"'<>/=]+)\s*(?:=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;

/** The absolute URL of the first `<link rel="manifest" href>`, resolved against the page URL; undefined when none. */
export function manifestUrl(html: string, pageUrl: string): string | undefined {
  for (const tag of html.matchAll(LINK_TAG)) {
    const attributes = parseAttributes(tag[0].slice(5, -1));
    const rel = attributes.get('rel');
    const href = attributes.get('href');
    if (rel === undefined || href === undefined || href.trim() === '') continue;
    if (!rel.toLowerCase().split(/\s+/).includes('manifest')) continue;
    try {
      return new URL(href.trim(), pageUrl).href;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const FORM_TAG = /<form\b[^>]*>/gi;

/**
 * The https:// actions of the page's forms (absolute, de-duplicated, at most `max`): the collector asks each where it
 * leads, since an https action that redirects to http:// sends the form's data in clear all the same.
 */
export function httpsFormActions(html: string, pageUrl: string, max: number): string[] {
  const out = new Set<string>();
  for (const tag of html.matchAll(FORM_TAG)) {
    if (out.size >= max) break;
    const action = parseAttributes(tag[0].slice(5, -1)).get('action')?.trim() ?? '';
    if (action === '') continue; // the page itself, already fetched
    try {
      const url = new URL(action, pageUrl);
      url.hash = '';
      if (url.protocol === 'https:') out.add(url.href);
    } catch {
      // an unparsable action goes nowhere
    }
  }
  return [...out];
}

/** The first `Sitemap:` URL of a robots.txt (absolute by the robots standard; resolved against robots.txt anyway). */
export function robotsSitemapUrl(robotsTxt: string, robotsUrl: string): string | undefined {
  const match = /^[ \t]*sitemap[ \t]*:[ \t]*(\S+)/im.exec(robotsTxt);
  if (match?.[1] === undefined) return undefined;
  try {
    return new URL(match[1], robotsUrl).href;
  } catch {
    return undefined;
  }
}

function parseAttributes(text: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const m of text.matchAll(ATTRIBUTE)) {
    const name = m[1]?.toLowerCase();
    if (name === undefined || attributes.has(name)) continue; // HTML keeps the first of duplicated attributes
    attributes.set(name, decodeEntities(m[2] ?? m[3] ?? m[4] ?? ''));
  }
  return attributes;
}

// Enough for URLs in attributes (&amp; in query strings); anything richer is the checks' parser's job.
function decodeEntities(value: string): string {
  return value.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;|&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}
