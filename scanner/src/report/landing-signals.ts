import { load } from 'cheerio';
import type { JudgingLimits } from '../checks/judging-limits.js';
import { parseHtmlBounded } from '../parse/bounded-html.js';
import { keywordReport, type KeywordReport } from '../seo/keyword.js';
import type { Snapshot } from '../snapshot/snapshot.js';

/** The advertising tags a paid-media report looks for (docs/scanner.md, "Reports"). */
export const AD_TAGS = ['GA4', 'Google Ads', 'Google Tag Manager', 'Meta Pixel', 'LinkedIn Insight', 'TikTok Pixel'] as const;
export type AdTag = (typeof AD_TAGS)[number];

export interface LandingSignals {
  readonly https: boolean;
  readonly mobileViewport: boolean;
  readonly ttfbMs: number | null;
  /** The page's HTML as transferred. */
  readonly htmlBytes: number;
  readonly tags: readonly { readonly tag: AdTag; readonly found: boolean }[];
  readonly forms: number;
  /** Texts of the calls to action found (at most ten listed). */
  readonly callsToAction: readonly string[];
  readonly callsToActionCount: number;
  /** One per requested term, in request order. */
  readonly keywords: readonly KeywordReport[];
  /** False when the page could not be read as HTML (too large, not HTML): the page-level signals are then empty. */
  readonly readable: boolean;
}

// Compiled once: the markers of each tag in script addresses and inline snippets.
const TAG_MARKERS: Readonly<Record<AdTag, RegExp>> = {
  GA4: /gtag\/js\?id=G-|gtag\(\s*['"]config['"]\s*,\s*['"]G-/,
  'Google Ads': /gtag\/js\?id=AW-|['"]AW-\d+|googleadservices\.com|googlesyndication\.com|doubleclick\.net/,
  'Google Tag Manager': /googletagmanager\.com\/gtm\.js|['"]GTM-[A-Z0-9]+['"]/,
  'Meta Pixel': /connect\.facebook\.net\/[^"']*fbevents\.js|fbq\(\s*['"]init['"]/,
  'LinkedIn Insight': /snap\.licdn\.com|px\.ads\.linkedin\.com|_linkedin_partner_id/,
  'TikTok Pixel': /analytics\.tiktok\.com|ttq\.load\(/,
};
// Words of a call to action, Portuguese and English.
const CTA = /\b(compr\w*|contrat\w*|assin\w*|cadastr\w*|inscrev\w*|agend\w*|fale|contato|or[çc]amento|solicit\w*|baix\w*|experiment\w*|whatsapp|buy|order|subscribe|sign ?up|get started|contact|book|download|try|register|quote|demo)\b/i;
const MAX_CTAS_LISTED = 10;

/**
 * What a landing page offers an ad campaign, read from the same snapshot the assessment judged: transport and speed
 * signals from the probe, tags, forms and calls to action from the HTML, and where each keyword appears.
 */
export function landingSignals(snapshot: Snapshot, keywords: readonly string[], limits: Pick<JudgingLimits, 'maxElements' | 'maxDepth'>): LandingSignals {
  const page = snapshot.page;
  const base = {
    https: page.finalUrl.startsWith('https://'),
    ttfbMs: page.error === undefined ? page.ttfbMs : null,
    htmlBytes: page.wireBytes,
  };
  let $;
  try {
    $ = /html/.test(page.contentType) ? load(parseHtmlBounded(page.body, limits)) : undefined;
  } catch {
    $ = undefined;
  }
  if ($ === undefined) {
    return { ...base, mobileViewport: false, tags: AD_TAGS.map((tag) => ({ tag, found: false })), forms: 0, callsToAction: [], callsToActionCount: 0, keywords: keywords.map((k) => keywordReport(k, { title: '', h1: [], metaDescription: '', url: page.finalUrl, bodyText: '' })), readable: false };
  }
  const scripts = $('script')
    .map((_, el) => `${$(el).attr('src') ?? ''} ${$(el).text()}`)
    .get()
    .join('\n');
  const pixels = $('img[src], iframe[src]').map((_, el) => $(el).attr('src') ?? '').get().join('\n');
  const haystack = `${scripts}\n${pixels}`;
  const ctas: string[] = [];
  $('a, button, input[type=submit], input[type=button]').each((_, el) => {
    const node = $(el);
    const text = (node.is('input') ? (node.attr('value') ?? '') : node.text()).replace(/\s+/g, ' ').trim();
    if (text !== '' && text.length <= 80 && CTA.test(text)) ctas.push(text);
  });
  $('script, style, noscript, template').remove();
  const signals = {
    title: $('title').first().text().trim(),
    h1: $('h1').map((_, el) => $(el).text().trim()).get(),
    metaDescription: $('meta[name="description" i]').attr('content') ?? '',
    url: page.finalUrl,
    bodyText: $('body').text().replace(/\s+/g, ' '),
  };
  return {
    ...base,
    mobileViewport: /width\s*=\s*device-width/i.test($('meta[name="viewport" i]').attr('content') ?? ''),
    tags: AD_TAGS.map((tag) => ({ tag, found: TAG_MARKERS[tag].test(haystack) })),
    forms: $('form').length,
    callsToAction: [...new Set(ctas)].slice(0, MAX_CTAS_LISTED),
    callsToActionCount: ctas.length,
    keywords: keywords.map((k) => keywordReport(k, signals)),
    readable: true,
  };
}
