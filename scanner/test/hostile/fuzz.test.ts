import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';
import type { RunningScanner } from '../../src/server.js';
import { healthzMs, post, sleep, startHostileScanner } from './hostile-scanner.js';

/**
 * Seeded, time-bounded fuzzing through the real service: a loopback site serves random robots.txt files, HTML shapes
 * and response headers; for each, the service keeps answering /healthz, the assessment answers within its budget, and
 * no evidence string is over the cap or carries a control character.
 */
const SEED = 20_261_123;
const EVIDENCE_CAP = 1000;
/** Collection (the site answers at once) plus the judging budget, with room for a busy machine. */
const ANSWER_WITHIN_MS = 15_000;
/**
 * Liveness bound of one /healthz probe. The fixture site, the client and the service share this process, and the
 * largest shapes (4 MB of markup, just under the element cap) take the parser a few hundred milliseconds on an idle
 * machine and several times that under a loaded test run; the freezes this guards against lasted 15 s to minutes.
 */
const PROBE_WITHIN_MS = 5_000;
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

interface Case {
  readonly robots: string;
  readonly html: string;
  readonly headers: Record<string, string>;
  readonly path: string;
  readonly seo: boolean;
}

let current: Case | undefined;
let scanner: RunningScanner;
let site: FixtureServer;

beforeAll(async () => {
  site = await startFixture((req, res) => {
    const c = current;
    if (c === undefined || req.url === undefined) {
      res.writeHead(503);
      res.end();
      return;
    }
    if (req.url === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(c.robots);
      return;
    }
    if (req.url === c.path) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...c.headers });
      res.end(c.html);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not here');
  });
  scanner = await startHostileScanner();
});

afterAll(async () => {
  await scanner?.close();
  await site?.close();
});

const nasty = fc.constantFrom('a', 'b', '/', '*', '$', '%', '?', '=', '\u0000', '\u001b', '\u202e', '\u0085', 'é', '😀');
const pattern = fc.array(fc.constantFrom('a', 'b', '/', '*', '*', '$', '.', '?'), { maxLength: 80 }).map((a) => `/${a.join('')}`);
const robotsLine = fc.oneof(
  fc.constantFrom('User-agent: *', 'User-agent: Googlebot', 'User-agent: GPTBot', 'User-agent: ClaudeBot', 'Sitemap: /sitemap.xml', 'Disallow:', ''),
  pattern.map((p) => `Disallow: ${p}`),
  pattern.map((p) => `Allow: ${p}`),
  fc.array(nasty, { maxLength: 200 }).map((a) => a.join('')),
);
const robots = fc.oneof(
  fc.array(robotsLine, { maxLength: 300 }).map((lines) => lines.join('\n')),
  // Many wildcard rules, the shape that used to backtrack.
  fc.integer({ min: 2, max: 12 }).map((stars) => `User-agent: *\n${`Disallow: /${'*a'.repeat(stars)}*b$\n`.repeat(500)}`),
);

const TAGS = ['div', 'b', 'p', 'li', 'ul', 'a', 'h1', 'title', 'meta', 'img', 'table', 'td', 'script', 'svg', 'span', 'form', 'input'] as const;
const text = fc.array(nasty, { maxLength: 400 }).map((a) => a.join('').replace(/[<&]/g, ''));
const attrs = fc.array(fc.tuple(fc.constantFrom('href', 'alt', 'content', 'name', 'rel', 'lang', 'property', 'src', 'hreflang'), text), { maxLength: 4 })
  .map((list) => list.map(([k, v]) => ` ${k}="${v.replace(/"/g, '')}"`).join(''));
const { node } = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.tuple(fc.constantFrom(...TAGS), attrs, fc.array(tie('node'), { maxLength: 5 })).map(([tag, a, children]) => `<${tag}${a}>${children.join('')}</${tag}>`),
  ),
}));
const html = fc.oneof(
  fc.tuple(text, fc.array(node, { maxLength: 20 })).map(([title, body]) => `<!doctype html><html lang="en"><head><title>${title}</title></head><body>${body.join('')}</body></html>`),
  // Deep and wide extremes, over and under the caps, closed or not.
  fc.tuple(fc.constantFrom(...TAGS), fc.integer({ min: 100, max: 60_000 }), fc.boolean()).map(([tag, n, closed]) => `<html><body>${`<${tag}>`.repeat(n)}x${closed ? `</${tag}>`.repeat(n) : ''}</body></html>`),
  fc.tuple(fc.constantFrom(...TAGS), fc.integer({ min: 1000, max: 120_000 })).map(([tag, n]) => `<html><body>${`<${tag} alt="${'a'.repeat(20)}">y</${tag}>`.repeat(n)}</body></html>`),
);

/** Header values as Node will send them: latin-1 without the characters it refuses (CR, LF, NUL and the other C0). */
const headerValue = fc.array(fc.constantFrom('a', ' ', ';', '=', '*', "'", '"', '\u0085', '\u009b', 'é', 'x'), { maxLength: 3000 }).map((a) => a.join('').trim() || 'x');
const headers = fc.dictionary(
  fc.constantFrom('server', 'x-powered-by', 'content-security-policy', 'x-robots-tag', 'strict-transport-security', 'x-frame-options', 'link', 'set-cookie', 'referrer-policy'),
  headerValue,
  { maxKeys: 6 },
);
const path = fc.array(fc.constantFrom('a', 'b', '/', '-'), { maxLength: 300 }).map((a) => `/${a.join('')}`);

/** Every string in a JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

describe('fuzzing the service with hostile sites (seeded, time-bounded)', () => {
  it('stays responsive, answers within its budget, and keeps every evidence string under the cap', async () => {
    const cases = fc.record({ robots, html, headers, path, seo: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(cases, async (c: Case) => {
        current = c;
        let settled = false;
        const started = performance.now();
        const pending = post(scanner, c.seo ? '/api/seo-scan' : '/api/super-scan', { url: `${site.origin}${c.path}` }).finally(() => {
          settled = true;
        });
        let slowestProbe = 0;
        while (!settled) {
          const t = performance.now();
          await sleep(20);
          await healthzMs(scanner);
          slowestProbe = Math.max(slowestProbe, performance.now() - t);
        }
        const answer = await pending;
        const ms = performance.now() - started;
        expect(answer.status).toBe(200);
        expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
        expect(slowestProbe).toBeLessThan(PROBE_WITHIN_MS);
        // The request URL is the caller's own input; everything else quotes the target.
        const quoted = strings({ ...answer.body, url: '' });
        for (const s of quoted) {
          expect(s.length).toBeLessThanOrEqual(EVIDENCE_CAP);
          expect(CONTROLS.test(s), JSON.stringify(s.slice(0, 60))).toBe(false);
          expect(LONE_SURROGATE.test(s), JSON.stringify(s.slice(0, 60))).toBe(false);
        }
      }),
      { seed: SEED, numRuns: 100, interruptAfterTimeLimit: 60_000, markInterruptAsFailure: false, endOnFailure: true },
    );
  }, 180_000);
});
