/** Where a target keyword appears among the page's observable SEO signals. */
export interface KeywordReport {
  readonly term: string;
  readonly inTitle: boolean;
  readonly inH1: boolean;
  readonly inMetaDescription: boolean;
  readonly inUrl: boolean;
  readonly inBody: boolean;
  /** Whole-phrase occurrences in the visible text. */
  readonly bodyOccurrences: number;
}

/** Case- and accent-insensitive form, spaces collapsed: "Café  Orgânico" and "cafe organico" match. */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{Diacritic}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

function count(haystack: string, needle: string): number {
  if (needle === '') return 0;
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

export function keywordReport(
  term: string,
  signals: { title: string; h1: readonly string[]; metaDescription: string; url: string; bodyText: string },
): KeywordReport {
  const k = fold(term);
  let path = signals.url;
  try {
    const u = new URL(signals.url);
    path = decodeURIComponent(u.hostname + u.pathname);
  } catch {
    // keep the raw string
  }
  // In a URL the words are joined by -, _ or /: compare on a slug of both.
  const slug = (s: string): string => fold(s).replace(/[^\p{L}\p{N}]+/gu, '-');
  const bodyOccurrences = count(fold(signals.bodyText), k);
  return {
    term,
    inTitle: fold(signals.title).includes(k),
    inH1: signals.h1.some((h) => fold(h).includes(k)),
    inMetaDescription: fold(signals.metaDescription).includes(k),
    inUrl: slug(path).includes(slug(term)),
    inBody: bodyOccurrences > 0,
    bodyOccurrences,
  };
}
