// Second-level labels under which registrations happen in many country-code domains (example.com.br, example.co.uk).
const SECOND_LEVEL = new Set(['com', 'net', 'org', 'gov', 'edu', 'co', 'ac', 'or', 'ne', 'go', 'mil']);

/**
 * The site a host belongs to, approximated without a public-suffix list: its last two labels, or three when the
 * second-to-last is a common second-level label under a two-letter country domain. IP literals are their own site.
 */
export function siteOf(hostname: string): string {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (/^[\d.]+$/.test(host) || host.includes(':')) return host;
  const labels = host.split('.');
  if (labels.length <= 2) return host;
  const tld = labels[labels.length - 1] ?? '';
  const second = labels[labels.length - 2] ?? '';
  const keep = tld.length === 2 && SECOND_LEVEL.has(second) ? 3 : 2;
  return labels.slice(-keep).join('.');
}

/** Hosts among `urls` whose site differs from the page's, sorted and unique. */
export function thirdPartyHosts(pageUrl: string, urls: Iterable<string>): string[] {
  const own = siteOf(new URL(pageUrl).hostname);
  const hosts = new Set<string>();
  for (const url of urls) {
    let host: string;
    try {
      const parsed = new URL(url);
      if (parsed.protocol === 'data:' || parsed.protocol === 'blob:') continue;
      host = parsed.hostname;
    } catch {
      continue;
    }
    if (host !== '' && siteOf(host) !== own) hosts.add(host);
  }
  return [...hosts].sort();
}
