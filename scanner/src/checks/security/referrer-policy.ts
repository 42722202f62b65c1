import { ALL_PROFILES, fail, info, pass, quote, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { byName } from '../dom.js';

const PRIVATE = new Set(['no-referrer', 'same-origin', 'strict-origin', 'strict-origin-when-cross-origin']);
const UNSAFE = new Set(['unsafe-url', 'no-referrer-when-downgrade']);
const KNOWN = new Set([...PRIVATE, ...UNSAFE, 'origin', 'origin-when-cross-origin']);

/**
 * Like Observatory: a missing header costs nothing (browsers default to strict-origin-when-cross-origin), an unsafe
 * one does. With several values the last one the browser understands wins.
 */
export const referrerPolicy: Check<'page'> = {
  id: 'security.referrer-policy',
  pillar: 'securityGovernance',
  dimension: 'security',
  profiles: ALL_PROFILES,
  weight: WEIGHT.minor,
  needs: ['page'],
  version: 1,
  audience: ['development', 'security'],
  references: [REF.referrerPolicy, REF.observatory],
  run({ page, derived }) {
    const header = page.headers['referrer-policy'];
    const meta = byName(derived.tag(page, 'meta'), 'name', 'referrer')?.attribs['content'];
    const raw = header ?? meta;
    const text = {
      impact: 'The full URL of the page, with any identifiers in its path or query, can leak to other sites in the Referer header.',
      businessImpact: 'Customer identifiers or internal paths leak to third parties, a privacy and compliance exposure.',
      recommendation: 'Send "Referrer-Policy: strict-origin-when-cross-origin" (or a stricter value).',
    };
    if (!raw) {
      return info({
        ...text,
        effort: 'Baixo',
        title: 'Referrer-Policy not set (browser default applies)',
        evidence: 'No Referrer-Policy header and no <meta name="referrer">; browsers fall back to strict-origin-when-cross-origin.',
      });
    }
    const values = raw.split(',').map((v) => v.trim().toLowerCase()).filter((v) => KNOWN.has(v));
    const effective = values.at(-1);
    if (effective && !UNSAFE.has(effective)) return pass(`Referrer-Policy: ${quote(raw)}.`);
    return fail({
      ...text,
      severity: 'Low',
      effort: 'Baixo',
      title: 'Referrer-Policy leaks full URLs to other sites',
      evidence: `Referrer-Policy: ${quote(raw)}${effective ? '' : ' (no recognised value)'}.`,
    });
  },
};
