import type { Finding } from '../assessment/assessment.js';
import type { CheerioAPI } from 'cheerio';
import type { Derived } from '../checks/derived.js';
import { JudgingLimitError, type JudgingLimits } from '../checks/judging-limits.js';
import { evidenceList, evidenceOrNull, evidenceText, type EvidenceBounds } from '../evidence/evidence-text.js';
import { CHECKS } from '../checks/registry.js';
import { judge } from '../judge/judge.js';
import { gradeFor, SCORING_VERSION, type Grade } from '../scoring/scoring.js';
import type { PageProbe, Snapshot } from '../snapshot/snapshot.js';
import { keywordReport, type KeywordReport } from './keyword.js';

/** The SEO audit's answer (docs/scanner.md): observable signals only, no ranking, backlinks or volumes. */
export interface SeoAudit {
  readonly url: string;
  readonly finalUrl: string;
  readonly requestId: string;
  readonly timestamp: string;
  readonly scoringVersion: string;
  readonly score: number;
  readonly grade: Grade;
  readonly checksSummary: { passed: number; total: number };
  readonly signals: {
    readonly statusCode: number | null;
    readonly title: string;
    readonly metaDescription: string;
    readonly h1: readonly string[];
    readonly canonical: string | null;
    readonly lang: string | null;
    readonly robotsMeta: string | null;
    readonly xRobotsTag: string | null;
    readonly hreflang: readonly string[];
    readonly openGraph: Readonly<Record<string, string>>;
    readonly jsonLdTypes: readonly string[];
    readonly wordCount: number;
  };
  readonly checks: readonly { id: string; status: string; evidence: string }[];
  readonly findings: readonly Finding[];
  /** Present when a keyword was given. */
  readonly keyword?: KeywordReport;
}

type Signals = SeoAudit['signals'];

/** The checks the audit runs: the seo dimension's, in report order. */
const SEO_CHECKS = CHECKS.filter((c) => c.dimension === 'seo');

/** Reads the signals from the page's markup; a page over the judging limits yields the header-borne ones only. */
function readSignals(page: PageProbe, derived: Derived): Signals {
  const fromHeaders = { statusCode: page.status, xRobotsTag: page.headers['x-robots-tag'] ?? null };
  let $: CheerioAPI;
  try {
    $ = derived.html(page);
  } catch (err) {
    if (!(err instanceof JudgingLimitError)) throw err;
    return { ...fromHeaders, title: '', metaDescription: '', h1: [], canonical: null, lang: null, robotsMeta: null, hreflang: [], openGraph: {}, jsonLdTypes: [], wordCount: 0 };
  }
  const text = (sel: string): string => $(sel).first().text().replace(/\s+/g, ' ').trim();
  const attr = (sel: string, name: string): string | null => $(sel).first().attr(name)?.trim() ?? null;
  const openGraph: Record<string, string> = {};
  for (const el of $('meta[property^="og:" i]').toArray()) openGraph[($(el).attr('property') ?? '').toLowerCase()] ??= $(el).attr('content') ?? '';
  const bodyText = derived.isHtml(page) ? derived.visibleText(page) : '';
  return {
    ...fromHeaders,
    title: text('title'),
    metaDescription: attr('meta[name="description" i]', 'content') ?? '',
    h1: $('h1').toArray().map((el) => $(el).text().replace(/\s+/g, ' ').trim()),
    canonical: attr('link[rel~="canonical" i]', 'href'),
    lang: attr('html', 'lang'),
    robotsMeta: attr('meta[name="robots" i]', 'content'),
    hreflang: $('link[rel~="alternate" i][hreflang]').toArray().map((el) => $(el).attr('hreflang') ?? ''),
    openGraph,
    jsonLdTypes: [...new Set(derived.jsonLd(page).flatMap((b) => b.types))],
    wordCount: bodyText === '' ? 0 : bodyText.split(' ').length,
  };
}

/** The signals as the audit carries them: every string cleaned and cut, every list shortened (evidence-text.ts). */
function boundedSignals(signals: Signals, bounds: EvidenceBounds): Signals {
  const text = (v: string): string => evidenceText(v, bounds);
  const list = (v: readonly string[]): string[] => evidenceList(v, bounds);
  const openGraph = Object.fromEntries(Object.entries(signals.openGraph).slice(0, bounds.evidenceMaxItems).map(([k, v]) => [text(k), text(v)]));
  return {
    statusCode: signals.statusCode,
    title: text(signals.title),
    metaDescription: text(signals.metaDescription),
    h1: list(signals.h1),
    canonical: evidenceOrNull(signals.canonical, bounds),
    lang: evidenceOrNull(signals.lang, bounds),
    robotsMeta: evidenceOrNull(signals.robotsMeta, bounds),
    xRobotsTag: evidenceOrNull(signals.xRobotsTag, bounds),
    hreflang: list(signals.hreflang),
    openGraph,
    jsonLdTypes: list(signals.jsonLdTypes),
    wordCount: signals.wordCount,
  };
}

/** Runs the seo-dimension checks over a snapshot and reads the signals a person would look at. */
export function seoAudit(snapshot: Snapshot, options: { requestId: string; keyword?: string; now?: () => Date; limits?: JudgingLimits }): SeoAudit {
  // The profile is always detected: it decides which seo signals count toward the score.
  const { results, scores, findings, derived } = judge(snapshot, { checks: SEO_CHECKS, limits: options.limits });
  const page = snapshot.page;
  const signals = readSignals(page, derived);
  const h1 = signals.h1;
  const bodyText = signals.wordCount === 0 ? '' : derived.visibleText(page);
  const seo = scores.dimensions.seo;
  return {
    url: snapshot.requestedUrl,
    finalUrl: evidenceText(page.finalUrl, derived.limits),
    requestId: options.requestId,
    timestamp: (options.now?.() ?? new Date()).toISOString(),
    scoringVersion: SCORING_VERSION,
    score: seo.score,
    grade: gradeFor(seo.score),
    checksSummary: scores.checksSummary,
    signals: boundedSignals(signals, derived.limits),
    checks: results.map((r) => ({ id: r.check.id, status: r.status, evidence: r.evidence })),
    findings,
    ...(options.keyword === undefined
      ? {}
      : { keyword: keywordReport(options.keyword, { title: signals.title, h1, metaDescription: signals.metaDescription, url: page.finalUrl, bodyText }) }),
  };
}
