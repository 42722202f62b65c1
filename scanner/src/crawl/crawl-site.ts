import { NetGuardError, type NetGuard } from '@aduana/shared';
import { fetchStatic, type StaticFetchOptions } from '../collect/fetch-static.js';
import { ScannerError } from '../errors.js';
import type { RobotsBounds } from '../parse/robots-txt.js';
import { checkLink } from './link-check.js';
import { canonicalConflicts, duplicates } from './crawl-findings.js';
import type { BrokenLink, CrawledPage, CrawlResult } from './crawl-types.js';
import { headerSaysNoindex, readPageFacts } from './page-facts.js';
import { fetchOriginRobots, robotsAllow, type OriginRobots } from './robots-rules.js';
import { resolveLink, SiteScope } from './site-scope.js';

export interface CrawlOptions {
  /** Pages visited at most (1 to 10; the request schema enforces it). */
  readonly maxPages: number;
}

export interface CrawlDeps {
  /** Every URL (robots.txt, pages, link checks) is checked by it and connected only to the checked address. */
  readonly guard: NetGuard;
  readonly userAgent: string;
  /** Per page or robots.txt fetch, body included. */
  readonly fetchTimeoutMs: number;
  readonly maxBodyBytes: number;
  /** HEAD checks of same-site links the page budget did not reach (docs/scanner.md: at most 50). */
  readonly maxLinkChecks: number;
  /** Links read from one page. */
  readonly maxLinksPerPage: number;
  readonly robots: RobotsBounds;
  readonly signal?: AbortSignal;
}

const HARD_MAX_PAGES = 10;
const MAX_TEXT_CHARS = 300;
const MAX_LINKED_FROM = 10;

/**
 * A static SEO crawl (docs/scanner.md, "SEO crawl"): breadth-first from the start URL, one page at a time, same site
 * only, robots.txt obeyed for our token, no JavaScript, redirects recorded and never followed. Throws ScannerError
 * when the start URL cannot be crawled at all: `blocked_destination` (guard) or `target_unreachable` /
 * `target_timeout` (502).
 */
export async function crawlSite(startUrl: string, options: CrawlOptions, deps: CrawlDeps): Promise<CrawlResult> {
  const maxPages = Math.max(1, Math.min(HARD_MAX_PAGES, Math.floor(options.maxPages)));
  const start = resolveLink(startUrl, startUrl);
  if (start === undefined) throw new ScannerError('invalid_url');
  const scope = new SiteScope(start);
  const fetchOptions: StaticFetchOptions = {
    guard: deps.guard,
    timeoutMs: deps.fetchTimeoutMs,
    maxBodyBytes: deps.maxBodyBytes,
    maxRedirects: 0,
    userAgent: deps.userAgent,
    ...(deps.signal === undefined ? {} : { signal: deps.signal }),
  };
  const robotsByOrigin = new Map<string, OriginRobots>();
  const robotsFor = async (url: URL): Promise<OriginRobots> => {
    let rules = robotsByOrigin.get(url.origin);
    if (rules === undefined) {
      // robots.txt may redirect (RFC 9309 asks crawlers to follow five); pages never do.
      rules = await fetchOriginRobots(url.origin, { ...fetchOptions, maxRedirects: 5 }, deps.robots);
      robotsByOrigin.set(url.origin, rules);
    }
    return rules;
  };

  const startRobots = await robotsFor(start);
  if (startRobots.kind === 'disallow_all' && startRobots.status === null) throw unreachable(startRobots.error);

  const pages: CrawledPage[] = [];
  const canonicalsOf = new Map<string, readonly string[]>();
  const linkedFrom = new Map<string, string[]>();
  const disallowed: string[] = [];
  const queue: string[] = [start.href];
  const seen = new Set<string>(queue);

  while (queue.length > 0 && pages.length < maxPages) {
    const href = queue.shift() ?? '';
    const url = new URL(href);
    if (!robotsAllow(await robotsFor(url), url)) {
      disallowed.push(href);
      continue;
    }
    const { probe, failure } = await fetchStatic(href, fetchOptions);
    if (pages.length === 0 && href === start.href && probe.status === null) {
      if (failure instanceof NetGuardError && failure.code !== 'dns') throw new ScannerError('blocked_destination', undefined, { cause: failure });
      throw unreachable(probe.error);
    }
    const location = probe.headers.location;
    const redirect = probe.status !== null && probe.status >= 300 && probe.status < 400 && location !== undefined ? resolveLink(location, href) : undefined;
    const isHtml = probe.status === 200 && /html/.test(probe.contentType);
    const facts = isHtml ? readPageFacts(probe.body, { maxLinks: deps.maxLinksPerPage, maxTextChars: MAX_TEXT_CHARS }) : undefined;
    const internal = new Set<string>();
    for (const raw of facts?.links ?? []) {
      const link = resolveLink(raw, href);
      if (link === undefined || !scope.includes(link)) continue;
      internal.add(link.href);
    }
    for (const link of internal) {
      const from = linkedFrom.get(link) ?? [];
      if (from.length < MAX_LINKED_FROM) from.push(href);
      linkedFrom.set(link, from);
      if (!seen.has(link)) {
        seen.add(link);
        queue.push(link);
      }
    }
    const canonicals = (facts?.canonicals ?? []).map((c) => resolveLink(c, href)?.href).filter((c): c is string => c !== undefined);
    canonicalsOf.set(href, canonicals);
    pages.push({
      url: href,
      status: probe.status,
      ...(probe.error === undefined ? {} : { error: probe.error }),
      ...(redirect === undefined ? {} : { redirectLocation: redirect.href }),
      title: facts?.title ?? null,
      metaDescription: facts?.metaDescription ?? null,
      canonical: canonicals[0] ?? null,
      h1: facts?.h1 ?? [],
      noindex: (facts?.noindex ?? false) || headerSaysNoindex(probe.headers['x-robots-tag']),
      wordCount: facts?.wordCount ?? 0,
      internalLinks: internal.size,
    });
  }

  const brokenLinks: BrokenLink[] = [];
  const visited = new Map(pages.map((p) => [p.url, p]));
  for (const [link, from] of linkedFrom) {
    const page = visited.get(link);
    if (page !== undefined && (page.status === null || page.status >= 400)) {
      brokenLinks.push({ url: link, status: page.status, ...(page.error === undefined ? {} : { error: page.error }), linkedFrom: from });
    }
  }
  // Links the page budget did not reach: a HEAD each, within the cap, robots.txt still obeyed.
  let linksChecked = 0;
  for (const [link, from] of linkedFrom) {
    if (linksChecked >= deps.maxLinkChecks) break;
    if (visited.has(link) || disallowed.includes(link)) continue;
    const url = new URL(link);
    if (!robotsAllow(await robotsFor(url), url)) continue;
    linksChecked++;
    const result = await checkLink(link, { guard: deps.guard, timeoutMs: deps.fetchTimeoutMs, userAgent: deps.userAgent, ...(deps.signal === undefined ? {} : { signal: deps.signal }) });
    if (result.status === null || result.status >= 400) brokenLinks.push({ url: link, ...result, linkedFrom: from });
  }

  return {
    startUrl: start.href,
    maxPages,
    pages,
    disallowedByRobots: disallowed,
    brokenLinks,
    linksChecked,
    duplicateTitles: duplicates(pages, 'title'),
    duplicateDescriptions: duplicates(pages, 'metaDescription'),
    canonicalConflicts: canonicalConflicts(pages, canonicalsOf, scope),
  };
}

function unreachable(error: string | undefined): ScannerError {
  if (error === 'blocked') return new ScannerError('blocked_destination');
  return new ScannerError(error === 'timeout' ? 'target_timeout' : 'target_unreachable');
}
