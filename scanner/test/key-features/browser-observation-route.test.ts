import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '@aduana/shared';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';
import { removeDataDir, startKeyedScanner, type KeyedScanner } from '../helpers/keyed-scanner.js';
import { noisePng } from '../observe/noise-png.js';

/**
 * POST /api/v1/browser-observations through the real service and Debian's Chromium. Only 127.0.0.1 is allowed
 * (SCANNER_ALLOW_PRIVATE); the canary listens on 127.0.0.2, another loopback address on another port, and must see
 * no request whatever the page loads. Renderings are limited to three an hour here to reach the quota quickly.
 */
const CHROMIUM = process.env.SCANNER_CHROMIUM_PATH ?? '/usr/bin/chromium';
const BIG_IMAGE = noisePng(800, 500);
const BIG = JSON.stringify({ url: `https://example.org/?q=${'x'.repeat(3 * 1024 * 1024)}` });
let site: FixtureServer;
let canary: FixtureServer;
let closedOrigin: string;
let sc: KeyedScanner;

beforeAll(async () => {
  canary = await startFixture((_req, res) => res.end('canary'), { host: '127.0.0.2' });
  const c = `http://127.0.0.2:${String(canary.port)}`;
  site = await startFixture((req, res) => {
    const html = (body: string): void => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    switch (req.url) {
      case '/shift':
        return html(`<!doctype html><html><head><title>Imagem grande</title></head><body style="margin:0">
          <div id="top"></div><p style="font-size:20px">Texto antes da imagem.</p>
          <img src="/big.png" width="800" height="500" alt="grande"><p>Mais texto.</p>
          <script>setTimeout(() => { document.getElementById('top').style.height = '300px'; }, 300);</script></body></html>`);
      case '/big.png':
        return void res.writeHead(200, { 'content-type': 'image/png', 'content-length': BIG_IMAGE.length }).end(BIG_IMAGE);
      case '/canary':
        return html(`<!doctype html><html><head><title>Canary</title><script src="${c}/script.js"></script></head><body>
          <img src="${c}/image.png"><iframe src="${c}/frame"></iframe>
          <script>fetch('${c}/fetch').catch(() => {});</script><p>Sem canário.</p></body></html>`);
      default:
        return void res.writeHead(404).end();
    }
  });
  const closed = await startFixture((_req, res) => res.end());
  closedOrigin = closed.origin;
  await closed.close();
  sc = await startKeyedScanner({ allowPrivate: '127.0.0.1/32', keyRenderingsPerHour: 3, chromiumPath: CHROMIUM });
});

afterAll(async () => {
  await sc?.close();
  await site?.close();
  await canary?.close();
  if (sc) removeDataDir(sc.dataDir);
});

describe('browser-observations: refusals', () => {
  it('401 without a key or with a bad one', async () => {
    for (const key of [null, 'nonsense', generateToken('sk')]) {
      const res = await sc.call('POST', '/api/v1/browser-observations', { key, body: { url: `${site.origin}/shift` } });
      expect(res.status).toBe(401);
      expect(Object.keys(res.body as object)).toEqual(['error']);
    }
  });

  it('400 {error} for bad input, a private address included (nothing fetched, no quota spent); 413 for 3 MB', async () => {
    const before = site.requests.length;
    const bad: unknown[] = [
      { url: `${site.origin}/shift`, wait: 5 },
      { url: `${site.origin}/shift`, profile: 'shop' },
      { url: 'file:///etc/passwd' },
      { url: `http://127.0.0.2:${String(canary.port)}/` },
      { url: 'http://169.254.169.254/latest/meta-data/' },
      { url: `https://example.org/${'a'.repeat(2048)}` },
      {},
    ];
    for (const body of bad) {
      const res = await sc.call('POST', '/api/v1/browser-observations', { body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(Object.keys(res.body as object)).toEqual(['error']);
    }
    const big = await sc.call('POST', '/api/v1/browser-observations', { raw: BIG });
    expect(big.status).toBe(413);
    expect(site.requests.length).toBe(before);
    expect(canary.connections()).toBe(0);
  });
});

describe('browser-observations: rendering', () => {
  it('reports the large image and the layout shift, and never changes the static score', async () => {
    const scan = await sc.call('POST', '/api/v1/scans', { body: { url: `${site.origin}/shift` } });
    expect(scan.status).toBe(200);
    const res = await sc.call('POST', '/api/v1/browser-observations', { body: { url: `${site.origin}/shift` } });
    expect(res.status).toBe(200);
    const o = res.body;
    expect(o.status).toBe(200);
    expect(o.requests.byType.image.count).toBe(1);
    expect(o.requests.byType.image.bytes).toBeGreaterThanOrEqual(BIG_IMAGE.length);
    expect(o.largestResources[0]).toMatchObject({ url: `${site.origin}/big.png`, type: 'image' });
    expect(o.lcpElement).toMatchObject({ tag: 'img', url: `${site.origin}/big.png` });
    expect(o.cls).toBeGreaterThan(0.1);
    expect(o.timings.fcpMs).toBeGreaterThan(0);
    expect(o.screenshot.mediaType).toBe('image/jpeg');
    // The observation is recorded nowhere: the recorded scan and the history are as they were.
    const again = await sc.call('GET', `/api/v1/scans/${String(scan.body.scanId)}`);
    expect(again.body.globalScore).toBe(scan.body.globalScore);
    expect(again.body.dimensions).toEqual(scan.body.dimensions);
    expect((await sc.call('GET', '/api/v1/scans')).body.items).toHaveLength(1);
  });

  it('a page loading a script, an image, an iframe and a fetch from the canary on another address and port: the canary sees nothing', async () => {
    const res = await sc.call('POST', '/api/v1/browser-observations', { body: { url: `${site.origin}/canary` } });
    expect(res.status).toBe(200);
    expect(canary.connections()).toBe(0);
    expect(canary.requests).toEqual([]);
    const refused = (res.body.refusedRequests as { destination: string }[]).map((r) => r.destination).join(' ');
    for (const what of ['script.js', 'image.png', 'frame', 'fetch']) expect(refused, what).toContain(what);
  });

  it('502 {error} when the target is unreachable', async () => {
    const res = await sc.call('POST', '/api/v1/browser-observations', { body: { url: `${closedOrigin}/` } });
    expect(res.status).toBe(502);
    expect(Object.keys(res.body as object)).toEqual(['error']);
  });

  it('the renderings quota (3 here): the fourth is 429 with an integer Retry-After and renders nothing', async () => {
    const before = site.requests.length;
    const res = await sc.call('POST', '/api/v1/browser-observations', { body: { url: `${site.origin}/shift` } });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(Object.keys(res.body as object)).toEqual(['error']);
    expect(site.requests.length).toBe(before);
  });
});

describe('browser-observations without Chromium', () => {
  it('the scanner starts and answers 502 with a message saying how to install it; no quota unit is lost to the missing browser check', async () => {
    const bare = await startKeyedScanner({ chromiumPath: '/nonexistent/chromium' });
    try {
      expect((await fetch(`${bare.url}/healthz`)).status).toBe(200);
      const res = await bare.call('POST', '/api/v1/browser-observations', { body: { url: `${site.origin}/shift` } });
      expect(res.status).toBe(502);
      expect(Object.keys(res.body as object)).toEqual(['error']);
      expect(res.body.error).toMatch(/system-packages\.sh/);
    } finally {
      await bare.close();
      removeDataDir(bare.dataDir);
    }
  });
});
