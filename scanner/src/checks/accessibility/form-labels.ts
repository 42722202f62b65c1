import { PAGE_PROFILES, fail, notApplicable, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { controlHasLabel, describe, labellable } from '../accessible-name.js';

/** axe label: every form control that takes input has a programmatic label. */
export const formLabels: Check<'page'> = {
  id: 'accessibility.form-labels',
  pillar: 'readiness',
  dimension: 'accessibility',
  profiles: PAGE_PROFILES,
  weight: WEIGHT.major,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['development'],
  references: [REF.w3cLabels, REF.mdnLabel],
  run({ page, derived }) {
    const $ = derived.html(page);
    const controls = labellable(derived, page);
    if (controls.length === 0) return notApplicable('No form controls on the page.');
    const unlabelled = controls.filter((el) => !controlHasLabel($, el));
    if (unlabelled.length === 0) return pass(`All ${controls.length} form control(s) are labelled.`);
    return fail({
      severity: 'Medium',
      effort: 'Baixo',
      score: 1 - unlabelled.length / controls.length,
      title: 'Form fields without labels',
      evidence: `${unlabelled.length} of ${controls.length} control(s) without a label: ${unlabelled.slice(0, 3).map((el) => describe($, el)).join(', ')}.`,
      impact: 'Screen-reader users and AI agents cannot tell what a field expects.',
      businessImpact: 'Forms (sign-up, checkout, contact) lose completions from assistive-technology users and automated assistants.',
      recommendation: 'Associate a visible <label for="id"> with each field, or wrap the field in its <label>; use aria-label only when no visible text fits.',
    });
  },
};
