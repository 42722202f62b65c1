import { PAGE_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';
import { hasToken, inHead } from '../dom.js';

/**
 * Lighthouse render-blocking-resources, statically: classic scripts in <head> without async/defer, and stylesheets
 * without a media query that excludes screens. More than a few stylesheets is reported too.
 */
const MAX_STYLESHEETS = 3;

export const renderBlocking: Check<'page'> = {
  id: 'performance.render-blocking',
  pillar: 'readiness',
  dimension: 'performance',
  profiles: PAGE_PROFILES,
  weight: WEIGHT.standard,
  needs: ['page'],
  needsHtml: true,
  version: 1,
  audience: ['development'],
  references: [REF.lhRenderBlocking],
  run({ page, derived }) {
    const scripts = derived
      .tag(page, 'script')
      .filter((el) => el.attribs['src'] !== undefined && el.attribs['async'] === undefined && el.attribs['defer'] === undefined && (el.attribs['type'] ?? '').toLowerCase() !== 'module' && inHead(el))
      .map((el) => el.attribs['src'] ?? '');
    const styles = derived
      .tag(page, 'link')
      .filter((el) => hasToken(el, 'rel', 'stylesheet') && el.attribs['href'] !== undefined && !/^(print|not\s)/i.test((el.attribs['media'] ?? '').trim()) && inHead(el))
      .map((el) => el.attribs['href'] ?? '');
    const problems: string[] = [];
    if (scripts.length > 0) problems.push(`${scripts.length} blocking script(s) in <head>: ${scripts.slice(0, 3).join(', ')}`);
    if (styles.length > MAX_STYLESHEETS) problems.push(`${styles.length} render-blocking stylesheets: ${styles.slice(0, 3).join(', ')}…`);
    if (problems.length === 0) return pass(`No blocking scripts in <head>; ${styles.length} stylesheet(s).`);
    return fail({
      severity: 'Low',
      effort: 'Médio',
      score: scripts.length > 0 ? 0.3 : 0.6,
      title: 'Render-blocking resources in <head>',
      evidence: `${problems.join('; ')}.`,
      impact: 'The browser cannot paint anything until these files are downloaded and run.',
      businessImpact: 'A later first paint raises bounce, above all on mobile networks.',
      recommendation: 'Add defer (or async) to scripts in <head>, inline the critical CSS and load the rest without blocking.',
    });
  },
};
