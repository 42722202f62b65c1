import { PAGE_PROFILES, fail, notApplicable, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { buttonHasName, buttons, controlHasLabel, describe, labellable } from '../accessible-name.js';

/** Agents operate pages through the accessible names of controls: every field and button must have one. */
export const labelledControls: Check<'page'> = {
  id: 'agentReadiness.labelled-controls',
  pillar: 'auditAgentic',
  dimension: 'agentReadiness',
  profiles: PAGE_PROFILES,
  weight: WEIGHT.standard,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['development'],
  references: [REF.w3cLabels, REF.wcagNameRole],
  run({ page, derived }) {
    const $ = derived.html(page);
    const fields = labellable(derived, page);
    const found = buttons(derived, page);
    if (fields.length + found.length === 0) return notApplicable('No forms or buttons on the page.');
    const unnamed = [...fields.filter((el) => !controlHasLabel($, el)), ...found.filter((el) => !buttonHasName($, el))];
    const total = fields.length + found.length;
    if (unnamed.length === 0) return pass(`${fields.length} field(s) and ${found.length} button(s), all named.`);
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      score: 1 - unnamed.length / total,
      title: 'Controls an agent cannot identify',
      evidence: `${unnamed.length} of ${total} control(s) without a name: ${unnamed.slice(0, 3).map((el) => describe($, el)).join(', ')}.`,
      impact: 'Browser agents choose fields and buttons by their names; unnamed controls are guessed at or skipped.',
      businessImpact: 'Agent-driven tasks (search, sign-up, purchase) fail on the site.',
      recommendation: 'Give every field a <label> and every button visible text or an aria-label.',
    });
  },
};
