/**
 * Which URLs belong to the crawled site: the start URL's host and its www/apex twin (www.example.com and
 * example.com are one site to most owners), any port as given, http or https. Everything else is off-site.
 */
export class SiteScope {
  readonly #hosts: ReadonlySet<string>;

  constructor(start: URL) {
    const host = start.hostname.toLowerCase();
    const twin = host.startsWith('www.') ? host.slice(4) : `www.${host}`;
    // An IP literal has no www twin.
    this.#hosts = new Set(/^[\d.]+$|:/.test(host) ? [host] : [host, twin]);
  }

  includes(url: URL): boolean {
    return (url.protocol === 'http:' || url.protocol === 'https:') && this.#hosts.has(url.hostname.toLowerCase());
  }
}

/** An absolute http(s) URL without its fragment, or undefined when `href` is not one. */
export function resolveLink(href: string, base: string): URL | undefined {
  const trimmed = href.trim();
  if (trimmed === '') return undefined;
  let url: URL;
  try {
    url = new URL(trimmed, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  return url;
}
