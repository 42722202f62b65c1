import { PAGE_PROFILES, fail, notApplicable, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { buttonHasName, buttons, describe } from '../accessible-name.js';

/** axe button-name: every button has a discernible name. */
export const buttonName: Check<'page'> = {
  id: 'accessibility.button-name',
  pillar: 'readiness',
  dimension: 'accessibility',
  profiles: PAGE_PROFILES,
  weight: WEIGHT.standard,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['development'],
  references: [REF.wcagNameRole],
  run({ page, derived }) {
    const $ = derived.html(page);
    const found = buttons(derived, page);
    if (found.length === 0) return notApplicable('No buttons on the page.');
    const unnamed = found.filter((el) => !buttonHasName($, el));
    if (unnamed.length === 0) return pass(`All ${found.length} button(s) have a name.`);
    return fail({
      severity: 'Medium',
      effort: 'Baixo',
      score: 1 - unnamed.length / found.length,
      title: 'Buttons without an accessible name',
      evidence: `${unnamed.length} of ${found.length} button(s) without a name: ${unnamed.slice(0, 3).map((el) => describe($, el)).join(', ')}.`,
      impact: 'Screen readers announce just "button"; agents cannot tell what it does (WCAG 4.1.2).',
      businessImpact: 'Key actions (buy, search, menu) are unusable for assistive technology and automated assistants.',
      recommendation: 'Give each button visible text, or an aria-label when it only shows an icon.',
    });
  },
};
