import type { CanonicalConflict, CrawledPage, DuplicateGroup } from './crawl-types.js';
import type { SiteScope } from './site-scope.js';

/** Titles (or descriptions) shared by two or more pages that answered 200. */
export function duplicates(pages: readonly CrawledPage[], field: 'title' | 'metaDescription'): DuplicateGroup[] {
  const byValue = new Map<string, string[]>();
  for (const page of pages) {
    const value = page[field];
    if (page.status !== 200 || value === null || value === '') continue;
    const urls = byValue.get(value) ?? [];
    urls.push(page.url);
    byValue.set(value, urls);
  }
  return [...byValue].filter(([, urls]) => urls.length > 1).map(([value, urls]) => ({ value, urls }));
}

/**
 * Canonical links that contradict something the crawl saw: several different canonicals on one page, a canonical to
 * another site, to a crawled page that did not answer 200, from a noindex page to another page (mixed signals), or to
 * a page whose own canonical points elsewhere again (a chain).
 */
export function canonicalConflicts(
  pages: readonly CrawledPage[],
  canonicalsOf: ReadonlyMap<string, readonly string[]>,
  scope: SiteScope,
): CanonicalConflict[] {
  const byUrl = new Map(pages.map((p) => [p.url, p]));
  const conflicts: CanonicalConflict[] = [];
  for (const page of pages) {
    const canonical = page.canonical;
    if (canonical === null) continue;
    const all = canonicalsOf.get(page.url) ?? [];
    if (new Set(all).size > 1) {
      conflicts.push({ url: page.url, canonical, kind: 'multiple', detail: `${String(all.length)} canonical links: ${[...new Set(all)].slice(0, 5).join(', ')}` });
    }
    if (!scope.includes(new URL(canonical))) {
      conflicts.push({ url: page.url, canonical, kind: 'cross_site', detail: 'the canonical points to another site' });
      continue;
    }
    if (canonical === page.url) continue;
    if (page.noindex) conflicts.push({ url: page.url, canonical, kind: 'noindex', detail: 'a noindex page names another page as canonical' });
    const target = byUrl.get(canonical);
    if (target === undefined) continue;
    if (target.status !== 200) {
      conflicts.push({ url: page.url, canonical, kind: 'target_not_ok', detail: `the canonical answered ${target.status === null ? (target.error ?? 'no answer') : String(target.status)}` });
    } else if (target.canonical !== null && target.canonical !== canonical) {
      conflicts.push({ url: page.url, canonical, kind: 'chain', detail: `the canonical page names ${target.canonical} as canonical` });
    }
  }
  return conflicts;
}
