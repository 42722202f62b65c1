import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '@aduana/shared';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';
import { removeDataDir, startKeyedScanner, type KeyedScanner } from '../helpers/keyed-scanner.js';

/**
 * POST /api/v1/seo-crawl through the real service against a fixture site on loopback: page limits, robots.txt,
 * redirects recorded and not followed, broken links with the page linking them, 502 for an unreachable start URL,
 * and the default quota of five crawls an hour per key (bad input spends none of it).
 */
const BIG = JSON.stringify({ url: `https://example.org/?q=${'x'.repeat(3 * 1024 * 1024)}` });
let site: FixtureServer;
let closedOrigin: string;
let sc: KeyedScanner;

const link = (href: string): string => `<a href="${href}">${href}</a>`;
const page = (title: string, body: string): string =>
  `<!doctype html><html><head><title>${title}</title><meta name="description" content="Descrição"></head><body><h1>${title}</h1>${body}</body></html>`;

beforeAll(async () => {
  site = await startFixture((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const send = (body: string, status = 200): void => void res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n');
    if (path === '/') return void send(page('Início', `${link('/private/x')}${link('/old')}${link('/missing')}${link('/p/1')}`));
    if (path === '/old') return void res.writeHead(301, { location: '/new-home' }).end();
    if (path === '/missing') return void send('gone', 404);
    const n = /^\/p\/(\d+)$/.exec(path);
    if (n) return void send(page(`Página ${n[1] ?? ''}`, link(`/p/${String(Number(n[1]) + 1)}`)));
    send('not found', 404);
  });
  const closed = await startFixture((_req, res) => res.end());
  closedOrigin = closed.origin;
  await closed.close();
  sc = await startKeyedScanner();
});

afterAll(async () => {
  await sc?.close();
  await site?.close();
  if (sc) removeDataDir(sc.dataDir);
});

interface Page {
  url: string;
  status: number | null;
  redirectLocation?: string;
  title: string | null;
}

describe('seo-crawl: refusals', () => {
  it('401 without a key or with a bad one', async () => {
    for (const key of [null, 'nonsense', generateToken('sk')]) {
      const res = await sc.call('POST', '/api/v1/seo-crawl', { key, body: { url: `${site.origin}/` } });
      expect(res.status).toBe(401);
      expect(Object.keys(res.body as object)).toEqual(['error']);
    }
  });

  it('400 {error} for bad input (nothing fetched, no quota spent); 413 for 3 MB', async () => {
    const before = site.requests.length;
    const bad: unknown[] = [
      { url: `${site.origin}/`, maxPages: 0 },
      { url: `${site.origin}/`, maxPages: 11 },
      { url: `${site.origin}/`, maxPages: 2.5 },
      { url: `${site.origin}/`, maxPages: '5' },
      { url: `${site.origin}/`, depth: 2 },
      { url: 'javascript:alert(1)' },
      { url: 'http://10.1.2.3/' },
      { url: 'http://169.254.169.254/latest/meta-data/' },
      {},
    ];
    for (const body of bad) {
      const res = await sc.call('POST', '/api/v1/seo-crawl', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body as object)).toEqual(['error']);
    }
    const big = await sc.call('POST', '/api/v1/seo-crawl', { raw: BIG });
    expect(big.status).toBe(413);
    expect(site.requests.length).toBe(before);
  });
});

describe('seo-crawl: the crawl', () => {
  it('visits five pages by default, obeys robots.txt, records the redirect without following it, finds the broken link', async () => {
    const before = site.requests.length;
    const res = await sc.call('POST', '/api/v1/seo-crawl', { body: { url: `${site.origin}/` } });
    expect(res.status).toBe(200);
    const pages = res.body.pages as Page[];
    expect(pages).toHaveLength(5);
    const paths = site.requests.slice(before).map((r) => `${r.method} ${r.path}`);
    expect(paths.some((p) => p.includes('/private'))).toBe(false);
    expect(paths.some((p) => p.includes('/new-home'))).toBe(false);
    const old = pages.find((p) => p.url === `${site.origin}/old`);
    expect(old).toMatchObject({ status: 301, redirectLocation: `${site.origin}/new-home` });
    expect(res.body.brokenLinks).toEqual(expect.arrayContaining([expect.objectContaining({ url: `${site.origin}/missing`, status: 404, linkedFrom: [`${site.origin}/`] })]));
    expect(pages[0]).toMatchObject({ url: `${site.origin}/`, status: 200, title: 'Início' });
  });

  it('visits at most maxPages, and never more than ten', async () => {
    const three = await sc.call('POST', '/api/v1/seo-crawl', { body: { url: `${site.origin}/p/1`, maxPages: 3 } });
    expect(three.status).toBe(200);
    expect((three.body.pages as Page[]).map((p) => p.url)).toEqual([1, 2, 3].map((n) => `${site.origin}/p/${String(n)}`));
    const before = site.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/p/')).length;
    const ten = await sc.call('POST', '/api/v1/seo-crawl', { body: { url: `${site.origin}/p/1`, maxPages: 10 } });
    expect(ten.status).toBe(200);
    expect(ten.body.pages).toHaveLength(10);
    expect(site.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/p/')).length - before).toBe(10);
  });

  it('502 {error} when the start URL is unreachable', async () => {
    const res = await sc.call('POST', '/api/v1/seo-crawl', { body: { url: `${closedOrigin}/` } });
    expect(res.status).toBe(502);
    expect(Object.keys(res.body as object)).toEqual(['error']);
  });

  it('five crawls an hour per key: the fifth passes, the sixth is 429 with an integer Retry-After', async () => {
    // Four spent above (three crawls and the unreachable one).
    expect((await sc.call('POST', '/api/v1/seo-crawl', { body: { url: `${site.origin}/`, maxPages: 1 } })).status).toBe(200);
    const before = site.requests.length;
    const res = await sc.call('POST', '/api/v1/seo-crawl', { body: { url: `${site.origin}/`, maxPages: 1 } });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
    expect(Object.keys(res.body as object)).toEqual(['error']);
    expect(site.requests.length).toBe(before);
  });
});
