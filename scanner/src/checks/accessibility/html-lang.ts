import { PAGE_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** axe html-has-lang and html-lang-valid: <html lang> is present and a well-formed BCP 47 tag. */
const BCP47 = /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i;

export const htmlLang: Check<'page'> = {
  id: 'accessibility.html-lang',
  pillar: 'readiness',
  dimension: 'accessibility',
  profiles: PAGE_PROFILES,
  weight: WEIGHT.standard,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['development'],
  references: [REF.wcagLanguage, REF.lang],
  run({ page, derived }) {
    const value = derived.tag(page, 'html')[0]?.attribs['lang'];
    if (value !== undefined && BCP47.test(value.trim())) return pass(`<html lang="${value}">.`);
    return fail({
      severity: 'Medium',
      effort: 'Baixo',
      title: value === undefined ? '<html> element has no lang attribute' : '<html lang> is not a valid language tag',
      evidence: value === undefined ? 'The root <html> element has no lang attribute.' : `<html lang="${value}">.`,
      impact: 'Screen readers pronounce the text with the wrong language rules (WCAG 3.1.1).',
      businessImpact: 'The page is hard to understand for screen-reader users; an accessibility compliance failure.',
      recommendation: 'Set the page language on the root element, e.g. <html lang="pt-BR">.',
    });
  },
};
