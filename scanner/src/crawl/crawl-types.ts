/** What a static crawl answers (docs/scanner.md, "SEO crawl"). */

export interface CrawledPage {
  readonly url: string;
  /** HTTP status; null when the page could not be fetched (see `error`). */
  readonly status: number | null;
  /** A fetch failure: timeout, refused, dns, tls, blocked, too_large, network. */
  readonly error?: string;
  /** A 3xx answer: where it pointed. Recorded, never followed. */
  readonly redirectLocation?: string;
  readonly title: string | null;
  readonly metaDescription: string | null;
  /** The first `<link rel=canonical>`, resolved against the page; null when none. */
  readonly canonical: string | null;
  readonly h1: readonly string[];
  /** A robots meta tag or X-Robots-Tag header says noindex. */
  readonly noindex: boolean;
  readonly wordCount: number;
  /** Distinct same-site links of the page (fragments removed). */
  readonly internalLinks: number;
}

export interface BrokenLink {
  readonly url: string;
  /** The status it answered (>= 400), or null when it could not be fetched. */
  readonly status: number | null;
  readonly error?: string;
  /** Crawled pages that link to it (at most ten listed). */
  readonly linkedFrom: readonly string[];
}

export interface DuplicateGroup {
  readonly value: string;
  readonly urls: readonly string[];
}

export type CanonicalConflictKind = 'multiple' | 'cross_site' | 'target_not_ok' | 'noindex' | 'chain';

export interface CanonicalConflict {
  readonly url: string;
  readonly canonical: string;
  readonly kind: CanonicalConflictKind;
  readonly detail: string;
}

export interface CrawlResult {
  readonly startUrl: string;
  readonly maxPages: number;
  /** Pages visited, in visiting order; never more than maxPages. */
  readonly pages: readonly CrawledPage[];
  /** Same-site URLs found but not visited because robots.txt disallows them for the scanner. */
  readonly disallowedByRobots: readonly string[];
  readonly brokenLinks: readonly BrokenLink[];
  /** Same-site links checked with HEAD because the page budget did not reach them. */
  readonly linksChecked: number;
  readonly duplicateTitles: readonly DuplicateGroup[];
  readonly duplicateDescriptions: readonly DuplicateGroup[];
  readonly canonicalConflicts: readonly CanonicalConflict[];
}
