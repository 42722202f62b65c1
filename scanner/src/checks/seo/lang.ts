import { ALL_PROFILES, fail, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** The page declares its language (html lang or Content-Language), so engines serve it to the right audience. */
export const lang: Check<'page'> = {
  id: 'seo.lang',
  pillar: 'readiness',
  dimension: 'seo',
  profiles: ALL_PROFILES,
  weight: WEIGHT.minor,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['marketing', 'development'],
  references: [REF.lang, REF.gscHreflang],
  run({ page, derived }) {
    const htmlLang = (derived.tag(page, 'html')[0]?.attribs['lang'] ?? '').trim();
    if (htmlLang) return pass(`<html lang="${htmlLang}">.`);
    const header = page.headers['content-language'];
    if (header) return pass(`Content-Language: ${quote(header)}.`);
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      title: 'Page language not declared',
      evidence: 'No lang attribute on <html> and no Content-Language header.',
      impact: 'Engines must guess the language; translation prompts and speech output may pick the wrong one.',
      businessImpact: 'The page may be shown to the wrong language audience.',
      recommendation: 'Declare the language on the root element, e.g. <html lang="pt-BR">.',
    });
  },
};
