import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAllowed, matchesRobotsPattern, parseRobotsTxt } from '../src/parse/robots-txt.js';

/** The old RegExp translation, as the reference for what a robots pattern means (only ever run on tiny inputs here). */
function reference(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const source = body
    .split('*')
    .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}${anchored ? '$' : ''}`, 's').test(path);
}

describe('robots.txt pattern matching without backtracking', () => {
  it('agrees with the RegExp meaning of * and $ on random patterns and paths (seeded)', () => {
    const letters = fc.constantFrom('a', 'b', '/', '*', '$', '.', '?');
    const pattern = fc.array(letters, { maxLength: 8 }).map((a) => a.join(''));
    const path = fc.array(fc.constantFrom('a', 'b', '/', '$', '.', '?', '*'), { maxLength: 12 }).map((a) => a.join(''));
    fc.assert(
      fc.property(pattern, path, (p, s) => matchesRobotsPattern(p, s) === reference(p, s)),
      { seed: 1509, numRuns: 20_000 },
    );
  });

  it('a pattern with many stars on a long path answers at once', () => {
    const path = `/${'a'.repeat(5000)}`;
    const pattern = `/${'*a'.repeat(200)}*b$`;
    const robots = parseRobotsTxt(`User-agent: *\n${`Disallow: ${pattern}\n`.repeat(1000)}`);
    const started = performance.now();
    for (let i = 0; i < 15; i++) expect(isAllowed(robots, 'googlebot', path)).toBe(true);
    // Generous liveness bound: the RegExp version of one such call did not finish in minutes.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('keeps at most the configured number of rules and refuses over-long rule paths as invalid lines', () => {
    const text = `User-agent: *\nDisallow: /${'x'.repeat(40)}\n${Array.from({ length: 30 }, (_, i) => `Disallow: /r${String(i)}/`).join('\n')}\n`;
    const robots = parseRobotsTxt(text, { robotsMaxRules: 10, robotsMaxRuleLength: 32 });
    expect(robots.groups[0]?.rules.length).toBe(10);
    expect(robots.invalidLines.map((l) => l.line)).toEqual([2]);
    expect(isAllowed(robots, 'x', '/r5/')).toBe(false);
    // Past the cap: ignored, so allowed.
    expect(isAllowed(robots, 'x', '/r25/')).toBe(true);
  });
});
