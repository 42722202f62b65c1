import { ALL_PROFILES, fail, info, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Every JSON-LD block must be valid JSON with a schema.org @context; absence is only Informational. */
export const jsonLd: Check<'page'> = {
  id: 'seo.json-ld',
  pillar: 'aeo',
  dimension: 'seo',
  profiles: ALL_PROFILES,
  weight: WEIGHT.standard,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['marketing', 'development'],
  references: [REF.gscStructuredData, REF.jsonLd],
  run({ page, derived }) {
    const blocks = derived.jsonLd(page);
    const text = {
      effort: 'Baixo' as const,
      impact: 'Search engines ignore structured data they cannot parse; rich results and entity understanding are lost.',
      businessImpact: 'The brand, products or articles are described less precisely in search and AI answers.',
      recommendation: 'Fix each <script type="application/ld+json"> block so it is valid JSON with "@context": "https://schema.org" and an "@type"; test with the Rich Results Test.',
    };
    if (blocks.length === 0) {
      return info({ ...text, title: 'No JSON-LD structured data', evidence: 'No <script type="application/ld+json"> block in the document.' });
    }
    const broken = blocks.filter((b) => b.error !== undefined);
    const noContext = blocks.filter((b) => b.error === undefined && !/schema\.org/i.test(JSON.stringify((b.value as Record<string, unknown> | null)?.['@context'] ?? b.raw.slice(0, 500))));
    if (broken.length === 0 && noContext.length === 0) {
      return pass(`${blocks.length} valid JSON-LD block(s): ${[...new Set(blocks.flatMap((b) => b.types))].join(', ') || 'no @type'}.`);
    }
    return fail({
      ...text,
      severity: broken.length > 0 ? 'Medium' : 'Low',
      score: broken.length > 0 ? 0 : 0.5,
      title: broken.length > 0 ? 'JSON-LD block does not parse' : 'JSON-LD block without schema.org context',
      evidence: broken.length > 0
        ? `${broken.length} of ${blocks.length} block(s) invalid: ${broken[0]?.error ?? ''} in "${(broken[0]?.raw ?? '').trim().slice(0, 120)}".`
        : `${noContext.length} block(s) have no schema.org @context: "${(noContext[0]?.raw ?? '').trim().slice(0, 120)}".`,
    });
  },
};
