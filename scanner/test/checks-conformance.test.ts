import { describe, expect, it } from 'vitest';
import { ALL_PROFILES, DIMENSIONS, PILLARS, type Check, type CheckInput } from '../src/checks/check.js';
import { Derived } from '../src/checks/derived.js';
import { CHECKS } from '../src/checks/registry.js';
import { runCheck } from '../src/checks/runner.js';
import { WEIGHT } from '../src/scoring/scoring.js';
import type { Snapshot, SnapshotPart } from '../src/snapshot/snapshot.js';
import { validateFinding, schemaErrors } from './assessment-validator.js';
import { bareSnapshot, emptySnapshot, goodSnapshot, minimalSnapshot } from './fixtures/snapshots.js';

const PARTS: readonly SnapshotPart[] = [
  'page', 'robotsTxt', 'sitemapXml', 'securityTxt', 'llmsTxt', 'manifest', 'apiCatalog', 'oauthAuthorizationServer',
  'oauthProtectedResource', 'mcpServerCard', 'agentCard', 'openapi', 'markdownNegotiation', 'tls', 'httpsRedirect', 'formActions',
];
const DIMENSION_FOLDER = /^(security|seo|accessibility|performance|aiDiscovery|agentReadiness|privacy)\.[a-z0-9-]+$/;

/** The Derived methods that read the parsed page. */
const DOM_READS = new Set(['html', 'index', 'tag', 'jsonLd', 'visibleText', 'csp']);
/**
 * Checks that read the parsed page yet judge any page; a page that is not HTML parses as empty. Adding one here is a
 * decision about its verdict on such pages, not a way round the test.
 */
const ANY_PAGE_DOM_READERS: ReadonlyMap<string, string> = new Map([
  ['security.csp', 'judges the header; the page only adds <meta> policies'],
  ['security.referrer-policy', 'judges the header; the page only adds a <meta> referrer'],
  ['security.form-action', 'judges the collected form actions; the page only adds its forms'],
  ['security.mixed-content', 'passes a page that references no http:// subresource'],
  ['security.sri', 'not applicable to a page with no third-party script'],
]);

/** The page-reading Derived methods a check calls over HTML pages: a real Derived, each call noted on its way through. */
function domReads(check: Check): string[] {
  const seen = new Set<string>();
  for (const snapshot of [goodSnapshot(), bareSnapshot()]) {
    const noting = new Proxy(new Derived(), {
      get(target, key) {
        const value: unknown = Reflect.get(target, key, target);
        if (typeof value !== 'function') return value;
        const method = value as (...args: unknown[]) => unknown;
        return (...args: unknown[]): unknown => {
          if (typeof key === 'string' && DOM_READS.has(key)) seen.add(key);
          return method.apply(target, args);
        };
      },
    });
    runCheck(check, snapshot, 'content', noting);
  }
  return [...seen].sort();
}

/** Calls run() directly with every declared part taken from the snapshot, even when absent: the harshest input. */
function runRaw(check: Check, snapshot: Snapshot): ReturnType<Check['run']> {
  const input: Record<string, unknown> = { requestedUrl: snapshot.requestedUrl, derived: new Derived() };
  for (const part of check.needs) input[part] = snapshot[part];
  return check.run(input as CheckInput<SnapshotPart>);
}

describe('every registered check', () => {
  it('has a unique id', () => {
    const ids = CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('covers all seven dimensions and the four pillars', () => {
    expect(new Set(CHECKS.map((c) => c.dimension))).toEqual(new Set(DIMENSIONS));
    expect(new Set(CHECKS.map((c) => c.pillar))).toEqual(new Set(PILLARS));
  });

  for (const check of CHECKS) {
    describe(check.id, () => {
      it('has valid metadata', () => {
        expect(check.id).toMatch(DIMENSION_FOLDER);
        expect(check.id.split('.')[0]).toBe(check.dimension);
        expect(PILLARS).toContain(check.pillar);
        expect(check.profiles.length).toBeGreaterThan(0);
        for (const p of check.profiles) expect(ALL_PROFILES).toContain(p);
        expect(Object.values(WEIGHT)).toContain(check.weight);
        expect(check.needs.length).toBeGreaterThan(0);
        for (const n of check.needs) expect(PARTS).toContain(n);
        expect(Number.isInteger(check.version) && check.version >= 1).toBe(true);
        expect(check.audience.length).toBeGreaterThan(0);
        expect(check.references.length).toBeGreaterThan(0);
        for (const r of check.references) expect(r.url).toMatch(/^https:\/\/[a-z0-9.-]+\.[a-z]{2,}\//);
      });

      it('never throws on a minimal, an empty or a bare snapshot, and gives a valid result', () => {
        for (const snapshot of [minimalSnapshot(), emptySnapshot(), bareSnapshot(), goodSnapshot()]) {
          for (const profile of ALL_PROFILES) {
            const result = runCheck(check, snapshot, profile, new Derived());
            expect(result.status, result.error).not.toBe('error');
            expect(['pass', 'fail', 'info', 'not_applicable', 'not_measured']).toContain(result.status);
            if (result.score !== null) expect(result.score >= 0 && result.score <= 1).toBe(true);
            if (result.status === 'fail' || result.status === 'info') {
              expect(schemaErrors(validateFinding, result.finding)).toBe('');
            } else {
              expect(result.finding).toBeUndefined();
            }
          }
        }
      });

      it('declares needsHtml when it reads the parsed page, and needs the page when it declares it', () => {
        if (check.needsHtml === true) expect(check.needs).toContain('page');
        const reads = domReads(check);
        if (ANY_PAGE_DOM_READERS.has(check.id)) expect([reads.length > 0, check.needsHtml]).toEqual([true, undefined]);
        else if (reads.length > 0) expect(check.needsHtml, `reads the page through ${reads.join(', ')}`).toBe(true);
      });

      it('does not throw when handed its declared parts as given, present or not, with the page empty', () => {
        const snapshot = emptySnapshot();
        expect(() => runRaw(check, snapshot)).not.toThrow();
      });
    });
  }
});
