import { PAGE_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { nodesOfType } from '../../parse/json-ld.js';

/** Entity types answer engines use to understand who is speaking and about what. */
const KEY_TYPES = ['Organization', 'LocalBusiness', 'WebSite', 'Product', 'Offer', 'Article', 'NewsArticle', 'BlogPosting', 'BreadcrumbList'];
/** Not rewarded: Google stopped showing these rich results for most sites in 2023. */
const NOT_REWARDED = ['FAQPage', 'HowTo'];
/** The property whose value should also be visible on the page, per type. */
const NAME_PROPERTY: Record<string, string> = { Article: 'headline', NewsArticle: 'headline', BlogPosting: 'headline', Product: 'name', Organization: 'name', WebSite: 'name', LocalBusiness: 'name' };

/**
 * Lower case, NFKC, whitespace runs as one space. The page's visible text arrives with its spaces already collapsed,
 * so the replace (a new string of ~50,000 characters on a 200 KB page, 0.3 ms) runs only when there is something to
 * collapse: a run of two or more, or one whitespace character that is not a space.
 */
const normalise = (s: string): string => {
  const folded = s.toLowerCase().normalize('NFKC');
  return (UNCOLLAPSED.test(folded) ? folded.replace(/\s+/g, ' ') : folded).trim();
};
const UNCOLLAPSED = /\s{2}|[^\S ]/;

/** JSON-LD that parses, declares the key entities, and agrees with the visible content. */
export const structuredData: Check<'page'> = {
  id: 'aiDiscovery.structured-data',
  pillar: 'aeo',
  dimension: 'aiDiscovery',
  profiles: PAGE_PROFILES,
  weight: WEIGHT.major,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['marketing', 'development'],
  references: [REF.gscStructuredData, REF.faqHowtoChange],
  run({ page, derived }) {
    const blocks = derived.jsonLd(page).filter((b) => b.error === undefined);
    const types = [...new Set(blocks.flatMap((b) => b.types))];
    const key = types.filter((t) => KEY_TYPES.includes(t));
    const text = {
      effort: 'Médio' as const,
      impact: 'Answer engines rely on schema.org entities to know who publishes the page and what it describes.',
      businessImpact: 'The brand, its products or articles are cited less accurately, or not at all, in AI answers.',
      recommendation: 'Describe the page with JSON-LD: Organization and WebSite on the home page, Article / Product / BreadcrumbList on inner pages, with names that match the visible text.',
    };
    if (key.length === 0) {
      const only = types.filter((t) => NOT_REWARDED.includes(t));
      return fail({
        ...text,
        severity: 'Low',
        title: 'No schema.org entities for answer engines',
        evidence: types.length === 0
          ? 'No parseable JSON-LD on the page.'
          : `JSON-LD types found: ${types.join(', ')}; none of ${KEY_TYPES.join(', ')}${only.length ? ` (${only.join('/')} no longer earns rich results and is not counted)` : ''}.`,
      });
    }
    // Consistency: the entity's name or headline should appear in the visible text or title.
    const visible = normalise(`${derived.html(page)(derived.tag(page, 'title')).text()} ${derived.visibleText(page)}`);
    const mismatches: string[] = [];
    for (const type of key) {
      const prop = NAME_PROPERTY[type];
      if (!prop) continue;
      for (const node of blocks.flatMap((b) => nodesOfType(b.value, type))) {
        const value = node[prop];
        if (typeof value === 'string' && value.trim() && !visible.includes(normalise(value))) mismatches.push(`${type}.${prop} "${value.slice(0, 80)}"`);
      }
    }
    if (mismatches.length > 0) {
      return fail({
        ...text,
        severity: 'Low',
        score: 0.5,
        title: 'Structured data does not match the visible content',
        evidence: `Not found in the page text: ${mismatches.slice(0, 3).join(', ')} (types: ${key.join(', ')}).`,
      });
    }
    return pass(`JSON-LD entities: ${key.join(', ')}; names match the visible content.`);
  },
};
