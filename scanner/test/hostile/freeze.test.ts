import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';
import type { RunningScanner } from '../../src/server.js';
import { healthzMs, post, sleep, startHostileScanner } from './hostile-scanner.js';

/**
 * A target the attacker controls must not freeze the service: while its assessment runs, /healthz answers promptly,
 * and the assessment itself answers (with what could not be judged marked as such).
 */
let scanner: RunningScanner;
let site: FixtureServer;

const NESTED = 100_000;
const deepPage = `<!doctype html><html><head><title>deep</title></head><body>${'<b>'.repeat(NESTED)}x</body></html>`;

const widePage = `<!doctype html><html><head><title>wide</title></head><body>${'<i>x</i>'.repeat(150_000)}</body></html>`;

beforeAll(async () => {
  site = await startFixture((req, res) => {
    if (req.url === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      // Each `*` used to become `.*` in a backtracking RegExp: about 15 s on a path of 140 a's.
      res.end('User-agent: *\nDisallow: /*a*a*a*a*b$\nAllow: /\n');
      return;
    }
    if (req.url === '/wide') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(widePage);
      return;
    }
    if (req.url?.startsWith('/deep') === true) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(deepPage);
      return;
    }
    res.writeHead(req.url?.startsWith('/a') === true ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="en"><head><title>t</title></head><body><h1>hello</h1></body></html>');
  });
  scanner = await startHostileScanner();
});

afterAll(async () => {
  await scanner?.close();
  await site?.close();
});

/** Runs the hostile assessment while probing /healthz back to back; gives the slowest probe and the answer. */
async function probeWhile(path: string, url: string): Promise<{ healthMs: number; answer: Awaited<ReturnType<typeof post>> }> {
  let settled = false;
  const pending = post(scanner, path, { url }).finally(() => {
    settled = true;
  });
  let healthMs = 0;
  while (!settled) {
    // The pause counts too: a freeze that starts during it delays the next probe.
    const started = performance.now();
    await sleep(20);
    await healthzMs(scanner);
    healthMs = Math.max(healthMs, performance.now() - started);
  }
  return { healthMs, answer: await pending };
}

describe('hostile targets do not freeze the service', () => {
  it('robots.txt wildcards: /healthz answers promptly while the assessment runs, and the assessment answers', async () => {
    const { healthMs, answer } = await probeWhile('/api/super-scan', `${site.origin}/${'a'.repeat(140)}`);
    expect(healthMs).toBeLessThan(2000);
    expect(answer.status).toBe(200);
    // The pattern never matches (no "b"), so the page stays allowed for crawlers.
    const ids = (answer.body['findings'] as { id: string }[]).map((f) => f.id);
    expect(ids).not.toContain('seo.indexable');
  }, 60_000);

  it('deeply nested HTML: /healthz answers promptly, the assessment answers with the page checks marked not measured', async () => {
    const { healthMs, answer } = await probeWhile('/api/seo-scan', `${site.origin}/deep`);
    expect(healthMs).toBeLessThan(2000);
    expect(answer.status).toBe(200);
    const checks = answer.body['checks'] as { id: string; status: string; evidence: string }[];
    const title = checks.find((c) => c.id === 'seo.title');
    expect(title?.status).toBe('not_measured');
    expect(title?.evidence).toMatch(/nest/i);
    const assessment = await post(scanner, '/api/super-scan', { url: `${site.origin}/deep` });
    expect(assessment.status).toBe(200);
  }, 120_000);

  it('a page of more elements than the cap answers with its markup checks not measured', async () => {
    const { healthMs, answer } = await probeWhile('/api/seo-scan', `${site.origin}/wide`);
    expect(healthMs).toBeLessThan(2000);
    expect(answer.status).toBe(200);
    const checks = answer.body['checks'] as { id: string; status: string; evidence: string }[];
    expect(checks.find((c) => c.id === 'seo.h1')).toMatchObject({ status: 'not_measured', evidence: expect.stringMatching(/more than 100000 elements/) });
    // Header-borne signals are still read.
    expect(answer.body['signals']).toMatchObject({ statusCode: 200, title: '' });
  }, 60_000);

  it('judging stops at its time budget: the checks not started are marked not measured, the assessment answers', async () => {
    const tight = await startHostileScanner({ judgingBudgetMs: 100, maxHtmlElements: 1_000_000 });
    try {
      const answer = await post(tight, '/api/seo-scan', { url: `${site.origin}/wide` });
      expect(answer.status).toBe(200);
      const checks = answer.body['checks'] as { id: string; status: string; evidence: string }[];
      expect(checks.some((c) => c.status === 'not_measured' && /judging budget/.test(c.evidence))).toBe(true);
    } finally {
      await tight.close();
    }
  }, 60_000);
});
