import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';
import type { RunningScanner } from '../../src/server.js';
import { post, startHostileScanner } from './hostile-scanner.js';

/** Evidence quotes what a target served: it is cut to a documented length and carries no control characters. */
let scanner: RunningScanner;
let site: FixtureServer;

const CAP = 1000;
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const long = (c: string): string => `\u001b[31m${c.repeat(200_000)}\u202e\u0000end`;
const hugePage = `<!doctype html><html lang="${long('l')}"><head><title>${long('T')}</title>
<meta name="description" content="${long('d')}"><meta name="robots" content="${long('r')}">
<link rel="canonical" href="http://x.example/${long('c')}"><meta property="og:title" content="${long('o')}">
<link rel="alternate" hreflang="${long('h')}" href="/x">
</head><body>${Array.from({ length: 3000 }, () => `<h1>${'H'.repeat(1000)}\u001b</h1><img src="a.png" alt="${'A'.repeat(1000)}">`).join('')}
<a href="/cart/${long('k')}">cart</a></body></html>`;

beforeAll(async () => {
  site = await startFixture((req, res) => {
    if (req.url === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.end(gzipSync(Buffer.alloc(512 * 1024, 0)));
      return;
    }
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-robots-tag': `\u009b${'x'.repeat(5000)}`, server: `Apache/${'9'.repeat(5000)}\u0085` });
      res.end(hugePage);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('no');
  });
  scanner = await startHostileScanner();
});

afterAll(async () => {
  await scanner?.close();
  await site?.close();
});

/** Every string in a JSON value, with where it sits. */
function strings(value: unknown, at = '$'): [string, string][] {
  if (typeof value === 'string') return [[at, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${at}[${String(i)}]`));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, `${at}.${k}`));
  return [];
}

function expectClean(body: unknown): void {
  for (const [at, s] of strings(body)) {
    expect(s.length, at).toBeLessThanOrEqual(CAP);
    expect(CONTROLS.test(s), `${at}: ${JSON.stringify(s.slice(0, 80))}`).toBe(false);
  }
  // Lists are cut too: a page of 3,000 headings does not make a megabyte answer.
  expect(JSON.stringify(body).length).toBeLessThan(200_000);
}

describe('evidence is bounded and clean', () => {
  it('super-scan: every string of the assessment is at most the cap and free of control characters', async () => {
    const answer = await post(scanner, '/api/super-scan', { url: `${site.origin}/`, profile: 'commerce' });
    expect(answer.status).toBe(200);
    expectClean(answer.body);
    const robots = (answer.body['findings'] as { id: string; evidence: string }[]).find((f) => f.id === 'seo.robots-txt');
    expect(robots?.evidence).toMatch(/line/);
  }, 60_000);

  it('seo-scan: signals, checks and findings are at most the cap and free of control characters', async () => {
    const answer = await post(scanner, '/api/seo-scan', { url: `${site.origin}/`, keyword: 'end' });
    expect(answer.status).toBe(200);
    expectClean(answer.body);
    const signals = answer.body['signals'] as { title: string; h1: string[] };
    expect(signals.title.startsWith('[31mTTT')).toBe(true);
    expect(signals.title.endsWith('…')).toBe(true);
    expect(signals.h1.length).toBeLessThanOrEqual(50);
  }, 60_000);
});
