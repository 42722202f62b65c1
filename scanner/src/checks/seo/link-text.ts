import { ALL_PROFILES, fail, notApplicable, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** Lighthouse link-text: link texts that say nothing about the target (its list, in the languages we serve first). */
const GENERIC = new Set([
  'click here', 'click this', 'go', 'here', 'this', 'start', 'right here', 'more', 'learn more', 'read more', 'continue',
  'clique aqui', 'aqui', 'clique', 'mais', 'saiba mais', 'leia mais', 'ver mais', 'continuar', 'acesse',
  'haga clic aquí', 'aquí', 'más', 'leer más', 'más información',
]);

export const linkText: Check<'page'> = {
  id: 'seo.link-text',
  pillar: 'readiness',
  dimension: 'seo',
  profiles: ALL_PROFILES,
  weight: WEIGHT.minor,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['marketing', 'development'],
  references: [REF.lhLinkText],
  run({ page, derived }) {
    const $ = derived.html(page);
    const anchors = derived.tag(page, 'a').filter((el) => el.attribs['href'] !== undefined && !/^\s*(#|javascript:)/i.test(el.attribs['href'] ?? ''));
    if (anchors.length === 0) return notApplicable('No links on the page.');
    const generic = anchors
      .map((el) => ({ href: el.attribs['href'] ?? '', text: $.text([el]).replace(/\s+/g, ' ').trim() }))
      .filter((l) => GENERIC.has(l.text.toLowerCase().replace(/[.!…:»›>]+$/, '').trim()));
    if (generic.length === 0) return pass(`${anchors.length} link(s), none with generic text.`);
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      score: Math.max(0, 1 - generic.length / anchors.length),
      title: 'Links with non-descriptive text',
      evidence: `${generic.length} link(s) with generic text: ${generic.slice(0, 3).map((l) => `<a href="${l.href}">${l.text}</a>`).join(', ')}.`,
      impact: 'Search engines and screen-reader users rely on link text to know what the target is about.',
      businessImpact: 'Linked pages get a weaker signal, and navigation by links becomes guesswork.',
      recommendation: 'Use link text that names the destination, e.g. "Veja os cafés da semana" instead of "clique aqui".',
    });
  },
};
