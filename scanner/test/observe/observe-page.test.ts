import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetGuard, type HostLookup } from '@aduana/shared';
import { BrowserHost, observePage, type ObserveDeps } from '../../src/observe/index.js';
import { ScannerError } from '../../src/errors.js';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';
import { noisePng } from './noise-png.js';

/**
 * Real Chromium (Debian's /usr/bin/chromium) against fixture pages on 127.0.0.1, the only range the guard allows.
 * The canary listens on 127.0.0.2 (loopback, outside the allowed range) and is also reachable by the name
 * canary.test: it must never see a connection, whatever the page does.
 */
const CHROMIUM = process.env.SCANNER_CHROMIUM_PATH ?? '/usr/bin/chromium';
const BIG_IMAGE = noisePng(800, 500); // about 1.2 MB
let site: FixtureServer;
let canary: FixtureServer;
let guard: NetGuard;
let host: BrowserHost;

function deps(overrides: Partial<ObserveDeps> = {}): ObserveDeps {
  return { browsers: host, guard, budgetMs: 30_000, settleMs: 3_000, connectTimeoutMs: 5_000, maxConsoleErrors: 50, ...overrides };
}

beforeAll(async () => {
  canary = await startFixture((_req, res) => res.end('canary'), { host: '127.0.0.2' });
  const c = `http://127.0.0.2:${String(canary.port)}`;
  const named = `http://canary.test:${String(canary.port)}`;
  site = await startFixture((req, res) => {
    const html = (body: string): void => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    switch (req.url) {
      case '/shift':
        return html(`<!doctype html><html><head><title>Imagem grande</title></head><body style="margin:0">
          <div id="top"></div>
          <p style="font-size:20px">Texto da página, antes da imagem.</p>
          <img src="/big.png" width="800" height="500" alt="grande">
          <p>Mais texto abaixo.</p>
          <script>
            console.error('fixture console error');
            setTimeout(() => { document.getElementById('top').style.height = '300px'; }, 300);
          </script></body></html>`);
      case '/big.png':
        return void res.writeHead(200, { 'content-type': 'image/png', 'content-length': BIG_IMAGE.length }).end(BIG_IMAGE);
      case '/canary':
        return html(`<!doctype html><html><head><title>Canary</title>
          <script src="${c}/script.js"></script></head><body>
          <img src="${c}/image.png"><img src="${named}/named.png"><img src="/to-canary">
          <iframe src="${c}/frame"></iframe><iframe src="/frame-redirect"></iframe>
          <link rel="stylesheet" href="${c}/style.css">
          <script>
            fetch('${c}/fetch').catch(() => {});
            fetch('${named}/fetch-named').catch(() => {});
            try { const ws = new WebSocket('ws://127.0.0.2:${String(canary.port)}/ws'); ws.onerror = () => {}; } catch (e) {}
            try { const ws = new WebSocket('ws://canary.test:${String(canary.port)}/ws-named'); ws.onerror = () => {}; } catch (e) {}
            navigator.sendBeacon && navigator.sendBeacon('${c}/beacon', 'x');
          </script>
          <p>Nada de canário aqui.</p></body></html>`);
      case '/third':
        return html(`<!doctype html><html><head><title>Terceiros</title>
          <script src="http://cdn.thirdparty.test:${String(site.port)}/lib.js"></script></head>
          <body><p>Texto</p><img src="http://www.127-0-0-1.test:${String(site.port)}/pixel"></body></html>`);
      case '/lib.js':
        return void res.writeHead(200, { 'content-type': 'text/javascript' }).end('window.lib = 1; nosuchfunction();');
      case '/pixel':
        return void res.writeHead(200, { 'content-type': 'image/png' }).end(noisePng(1, 1));
      case '/hangs':
        return html('<!doctype html><html><head><title>Lenta</title></head><body><p>Quase pronta</p><img src="/never.png"></body></html>');
      case '/never.png':
      case '/never':
        return; // never answered: the load event never comes
      case '/to-canary':
        return void res.writeHead(302, { location: `${c}/redirected.png` }).end();
      case '/frame-redirect':
        return void res.writeHead(302, { location: `${c}/frame-redirected` }).end();
      default:
        return void res.writeHead(404).end();
    }
  });
  const lookup: HostLookup = async (name) => {
    if (name === 'canary.test') return [{ address: '127.0.0.2', family: 4 }];
    if (name === 'cdn.thirdparty.test' || name === 'www.127-0-0-1.test') return [{ address: '127.0.0.1', family: 4 }];
    throw new Error(`no such host ${name}`);
  };
  guard = new NetGuard({ allowPrivate: ['127.0.0.1/32'], lookup });
  host = new BrowserHost({ executablePath: CHROMIUM, launchTimeoutMs: 30_000, guard, connectTimeoutMs: 5_000 });
});

afterAll(async () => {
  await host.close();
  await site.close();
  await canary.close();
  await guard.close();
});

describe('observePage', () => {
  it('reports a known large image, the layout shift it caused, paint timings and a screenshot', async () => {
    const o = await observePage(`${site.origin}/shift`, deps());
    expect(o.status).toBe(200);
    const image = o.requests.byType.image;
    expect(image?.count).toBe(1);
    expect(image?.bytes).toBeGreaterThanOrEqual(BIG_IMAGE.length);
    expect(o.largestResources[0]).toMatchObject({ url: `${site.origin}/big.png`, type: 'image' });
    expect(o.largestResources[0]?.bytes).toBeGreaterThanOrEqual(BIG_IMAGE.length);
    expect(o.lcpElement).toMatchObject({ tag: 'img', url: `${site.origin}/big.png` });
    // The 300 px inserted above the text and the image moves both: a clear shift.
    expect(o.cls).toBeGreaterThan(0.1);
    expect(o.timings.ttfbMs).not.toBeNull();
    expect(o.timings.fcpMs).toBeGreaterThan(0);
    expect(o.timings.lcpMs).toBeGreaterThanOrEqual(o.timings.fcpMs ?? 0);
    expect(o.consoleErrors).toContain('fixture console error');
    expect(o.thirdPartyHosts).toEqual([]);
    expect(o.screenshot?.mediaType).toBe('image/jpeg');
    expect(Buffer.from(o.screenshot?.base64 ?? '', 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(o.budgetExceeded).toBe(false);
  });

  it('refuses every request to the loopback canary: script, image, iframe, fetch, WebSocket, redirects and a name resolving there', async () => {
    const before = site.requests.length;
    const o = await observePage(`${site.origin}/canary`, deps());
    expect(o.status).toBe(200);
    expect(canary.connections()).toBe(0);
    expect(canary.requests).toEqual([]);
    // The page itself and its two redirecting sub-resources did go through (to the allowed fixture).
    const paths = site.requests.slice(before).map((r) => r.path);
    expect(paths).toEqual(expect.arrayContaining(['/canary', '/to-canary', '/frame-redirect']));
    const refused = o.refusedRequests.map((r) => r.destination).join(' ');
    for (const what of ['script.js', 'image.png', 'frame', 'fetch', 'redirected.png', 'frame-redirected', 'named.png']) {
      expect(refused, what).toContain(what);
    }
    // WebSockets reach the proxy as CONNECT tunnels to host:port (or as an absolute ws: URI).
    expect(o.refusedCount).toBeGreaterThanOrEqual(9);
    expect(o.refusedRequests.some((r) => /canary\.test/.test(r.destination))).toBe(true);
  });

  it('names the third-party hosts a page loads from and the errors its scripts throw', async () => {
    const o = await observePage(`${site.origin}/third`, deps());
    expect(o.thirdPartyHosts).toEqual(['cdn.thirdparty.test', 'www.127-0-0-1.test']);
    expect(o.requests.byType.script?.count).toBe(1);
    expect(o.consoleErrors.some((e) => e.includes('nosuchfunction'))).toBe(true);
    expect(o.refusedCount).toBe(0);
  });

  it('keeps one browser warm across observations, each in a fresh context', async () => {
    const first = await host.browser();
    await observePage(`${site.origin}/shift`, deps());
    expect(await host.browser()).toBe(first);
    expect(first.contexts()).toHaveLength(0);
  });

  it('answers blocked_destination when the page itself is refused, and nothing reaches it', async () => {
    const error = await observePage(`http://127.0.0.2:${String(canary.port)}/`, deps()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'blocked_destination' });
    expect(canary.connections()).toBe(0);
  });

  it('answers target_unreachable (502) when nothing listens', async () => {
    const gone = await startFixture((_req, res) => res.end());
    await gone.close();
    const error = await observePage(`http://127.0.0.1:${String(gone.port)}/`, deps()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScannerError);
    expect(error).toMatchObject({ code: 'target_unreachable', status: 502 });
  });
});

describe('the budget', () => {
  it('reports what was seen when the page is still loading at the end of the budget', async () => {
    const o = await observePage(`${site.origin}/hangs`, deps({ budgetMs: 5_000 }));
    expect(o.budgetExceeded).toBe(true);
    expect(o.status).toBe(200);
    expect(o.timings.fcpMs).toBeGreaterThan(0);
    expect(o.timings.loadMs).toBeNull();
  });

  it('answers target_timeout (502) when the page never answers', async () => {
    const error = await observePage(`${site.origin}/never`, deps({ budgetMs: 5_000 })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'target_timeout', status: 502 });
  });
});

describe('a browser that dies', () => {
  it('fails the observation in progress with browser_crashed (502), and the next one gets a new browser', async () => {
    const own = new BrowserHost({ executablePath: CHROMIUM, launchTimeoutMs: 30_000, guard, connectTimeoutMs: 5_000 });
    try {
      const first = await own.browser();
      const pending = observePage(`${site.origin}/hangs`, deps({ browsers: own })).catch((e: unknown) => e);
      // Killed while the page is still loading (its image never comes).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await first.close();
      expect(await pending).toMatchObject({ code: 'browser_crashed', status: 502 });
      const o = await observePage(`${site.origin}/shift`, deps({ browsers: own }));
      expect(o.status).toBe(200);
      expect(await own.browser()).not.toBe(first);
    } finally {
      await own.close();
    }
  });

  it('refuses what is not an http(s) URL before the browser sees it', async () => {
    for (const url of ['file:///etc/passwd', 'chrome://crash', 'data:text/html,hi', 'http://user:pw@127.0.0.1/']) {
      await expect(observePage(url, deps())).rejects.toMatchObject({ code: 'invalid_url' });
    }
  });
});

describe('without Chromium', () => {
  it('answers browser_missing (502) with a message saying how to install it', async () => {
    const missing = new BrowserHost({ executablePath: '/nonexistent/chromium', launchTimeoutMs: 5_000, guard, connectTimeoutMs: 1_000 });
    const error = await observePage(`${site.origin}/shift`, deps({ browsers: missing })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScannerError);
    expect(error).toMatchObject({ code: 'browser_missing', status: 502 });
    expect((error as Error).message).toContain('bash scripts/system-packages.sh');
    await missing.close();
  });
});
