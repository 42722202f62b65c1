import { describe, expect, it, vi } from 'vitest';
import { fail, pass, type Check } from '../src/checks/check.js';
import { Derived } from '../src/checks/derived.js';
import { runChecks } from '../src/checks/runner.js';
import { WEIGHT } from '../src/scoring/scoring.js';
import { goodSnapshot, minimalSnapshot, page } from './fixtures/snapshots.js';

const base = {
  pillar: 'readiness',
  dimension: 'seo',
  profiles: ['content'],
  weight: WEIGHT.standard,
  version: 1,
  audience: ['development'],
  references: [{ label: 'x', url: 'https://example.org/' }],
} as const;

const issue = { severity: 'Medium', effort: 'Baixo', title: 't', evidence: 'e', impact: 'i', businessImpact: 'b', recommendation: 'r' } as const;

describe('checks runner', () => {
  it('turns an exception into an error result and keeps running the other checks', () => {
    const broken: Check<'page'> = { ...base, id: 'seo.broken', needs: ['page'], run: () => { throw new Error('boom'); } };
    const fine: Check<'page'> = { ...base, id: 'seo.fine', needs: ['page'], run: () => pass('ok') };
    const [a, b] = runChecks([broken, fine], goodSnapshot(), 'content');
    expect([a?.status, a?.error, a?.score]).toEqual(['error', 'boom', null]);
    expect(b?.status).toBe('pass');
  });

  it('checks not started by the judging deadline are not measured, said why, and never called', () => {
    const run = vi.fn(() => pass('ok'));
    const check: Check<'page'> = { ...base, id: 'seo.late', needs: ['page'], run };
    const [r] = runChecks([check], goodSnapshot(), 'content', new Derived(), performance.now() - 1);
    expect(r).toMatchObject({ status: 'not_measured', score: null, evidence: expect.stringMatching(/judging budget/) });
    expect(run).not.toHaveBeenCalled();
  });

  it('cuts evidence and finding text to the cap and strips control characters, whatever the check wrote', () => {
    const loud: Check<'page'> = { ...base, id: 'seo.loud', needs: ['page'], run: () => fail({ ...issue, title: '\u202eevil', evidence: `\u001b${'x'.repeat(5000)}` }) };
    const [r] = runChecks([loud], goodSnapshot(), 'content');
    expect(r?.finding?.title).toBe('evil');
    expect(r?.evidence.length).toBe(1000);
    expect(r?.finding?.evidence.startsWith('xxx')).toBe(true);
    expect(r?.finding?.evidence.endsWith('…')).toBe(true);
  });

  it('marks a check not measured when a declared part is missing, without calling it', () => {
    const run = vi.fn(() => pass('ok'));
    const check: Check<'tls'> = { ...base, id: 'seo.tls', needs: ['tls'], run };
    const [r] = runChecks([check], minimalSnapshot(), 'content');
    expect([r?.status, r?.score]).toEqual(['not_measured', null]);
    expect(run).not.toHaveBeenCalled();
  });

  it('answers a check that needs an HTML page not applicable on any other page, saying the content type, without calling it', () => {
    const run = vi.fn(() => pass('ok'));
    const check: Check<'page'> = { ...base, id: 'seo.html-only', needs: ['page'], needsHtml: true, run };
    const json = goodSnapshot({ page: page('{"a":1}', { 'content-type': 'application/json; charset=utf-8' }) });
    const [a] = runChecks([check], json, 'content');
    expect(a).toMatchObject({ status: 'not_applicable', score: null, evidence: 'Not an HTML page (application/json).' });
    const [b] = runChecks([check], minimalSnapshot(), 'content');
    expect(b).toMatchObject({ status: 'not_applicable', score: null, evidence: 'Not an HTML page (no content type).' });
    expect(run).not.toHaveBeenCalled();
    // An HTML page, declared or sniffed from a missing content type, is judged as before.
    const sniffed = goodSnapshot({ page: page('<!doctype html><title>x</title>', {}) });
    expect(runChecks([check], goodSnapshot(), 'content')[0]?.status).toBe('pass');
    expect(runChecks([check], sniffed, 'content')[0]?.status).toBe('pass');
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('runs a check that does not declare it on any page, and reports a missing part before the page kind', () => {
    const any: Check<'page'> = { ...base, id: 'seo.any-page', needs: ['page'], run: () => pass('ok') };
    const json = goodSnapshot({ page: page('{"a":1}', { 'content-type': 'application/json' }) });
    expect(runChecks([any], json, 'content')[0]?.status).toBe('pass');
    const both: Check<'page' | 'tls'> = { ...base, id: 'seo.html-tls', needs: ['page', 'tls'], needsHtml: true, run: () => pass('ok') };
    expect(runChecks([both], minimalSnapshot(), 'content')[0]).toMatchObject({ status: 'not_measured', evidence: 'tls was not collected' });
  });

  it('gives a check only the parts it declared', () => {
    let seen: string[] = [];
    const check: Check<'robotsTxt'> = { ...base, id: 'seo.keys', needs: ['robotsTxt'], run: (input) => { seen = Object.keys(input).sort(); return pass('ok'); } };
    runChecks([check], goodSnapshot(), 'content');
    expect(seen).toEqual(['derived', 'requestedUrl', 'robotsTxt']);
  });

  it('reports a failure as Informational and unscored for a profile that does not need the signal', () => {
    const check: Check<'page'> = { ...base, id: 'seo.api-only', profiles: ['api'], needs: ['page'], run: () => fail(issue) };
    const [content] = runChecks([check], goodSnapshot(), 'content');
    expect([content?.status, content?.score, content?.finding?.severity, content?.finding?.priority]).toEqual(['info', null, 'Informational', 4]);
    const [api] = runChecks([check], goodSnapshot(), 'api');
    expect([api?.status, api?.score, api?.finding?.severity, api?.finding?.priority]).toEqual(['fail', 0, 'Medium', 2]);
  });

  it('parses the page once per assessment, whatever the number of checks that read it', () => {
    // Same object back: the second caller got the cached tree, not a second parse.
    const derived = new Derived();
    const a = derived.html(goodSnapshot().page);
    expect(derived.html(goodSnapshot().page)).toBe(a);
    expect(derived.jsonLd(goodSnapshot().page)).toBe(derived.jsonLd(goodSnapshot().page));
    const csp1 = derived.csp(goodSnapshot().page);
    expect(derived.csp(goodSnapshot().page)).toBe(csp1);
  });

  it('fills the finding from the check metadata and the verdict', () => {
    const check: Check<'page'> = { ...base, id: 'seo.meta', needs: ['page'], run: () => fail({ ...issue, severity: 'High', score: 0.25 }) };
    const [r] = runChecks([check], goodSnapshot(), 'content');
    expect(r?.score).toBe(0.25);
    expect(r?.finding).toEqual({
      id: 'seo.meta', pillar: 'readiness', title: 't', evidence: 'e', impact: 'i', businessImpact: 'b', recommendation: 'r',
      audience: ['development'], severity: 'High', priority: 1, effort: 'Baixo', references: [{ label: 'x', url: 'https://example.org/' }],
    });
  });
});
