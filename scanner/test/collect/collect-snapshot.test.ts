import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetGuardError, type HostLookup } from '@aduana/shared';
import { CollectError } from '../../src/collect/collect-error.js';
import { collectSnapshot, type CollectOptions } from '../../src/collect/collect-snapshot.js';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';
import { selfSignedCert } from '../../../shared/test/helpers/self-signed-cert.js';

const LOOPBACK_ONLY: CollectOptions = { allowPrivate: ['127.0.0.1/32'] };

let site: FixtureServer;
let outside: FixtureServer; // 127.0.0.2, not allow-listed: a destination that must never be connected to
let secure: FixtureServer;
let plain: FixtureServer; // the https site's http:// side

function json(res: ServerResponse, body: unknown, type = 'application/json'): void {
  res.setHeader('content-type', type);
  res.end(JSON.stringify(body));
}

function fixtureSite(req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  const accept = req.headers.accept ?? '';
  switch (path) {
    case '/':
      if (accept === 'text/markdown') {
        res.setHeader('content-type', 'text/markdown; charset=utf-8');
        res.end('# Fixture\n\nHello.');
        return;
      }
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.setHeader('set-cookie', 'sid=1; Secure; HttpOnly');
      res.end(
        '<!doctype html><html lang="en"><head><title>Fixture</title>' +
          '<link rel="icon" href="/favicon.ico"><link href="/app.webmanifest?v=1&amp;x=2" rel="manifest"></head>' +
          `<body><h1>Fixture</h1><img src="http://127.0.0.2:${String(outside.port)}/pixel.gif" alt=""></body></html>`,
      );
      return;
    case '/start':
      res.writeHead(301, { location: '/' }).end();
      return;
    case '/robots.txt':
      res.setHeader('content-type', 'text/plain');
      res.end('User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n\nSitemap: /sitemaps/main.xml\nSitemap: /sitemaps/second.xml\n');
      return;
    case '/sitemaps/main.xml':
      res.setHeader('content-type', 'application/xml');
      res.end('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/</loc></url></urlset>');
      return;
    case '/.well-known/security.txt':
      res.setHeader('content-type', 'text/plain');
      res.end('Contact: mailto:security@fixture.test\nExpires: 2030-01-01T00:00:00Z\n');
      return;
    case '/llms.txt':
      res.setHeader('content-type', 'text/markdown');
      res.end('# Fixture\n\n> A test site.\n\n- [Docs](/docs): the docs\n');
      return;
    case '/app.webmanifest':
      json(res, { name: 'Fixture', start_url: '/' }, 'application/manifest+json');
      return;
    case '/.well-known/api-catalog':
      json(res, { linkset: [{ anchor: '/api' }] }, 'application/linkset+json');
      return;
    case '/.well-known/oauth-protected-resource':
      json(res, { resource: 'http://fixture.test/', authorization_servers: ['http://fixture.test/'] });
      return;
    case '/.well-known/agent-card.json':
      json(res, { name: 'Fixture agent', url: 'http://fixture.test/a2a', skills: [] });
      return;
    case '/.well-known/mcp.json':
      res.writeHead(302, { location: '/mcp-card' }).end(); // resources follow redirects too
      return;
    case '/mcp-card':
      json(res, { name: 'fixture-mcp', endpoint: '/mcp' });
      return;
    case '/swagger.json':
      json(res, { swagger: '2.0', info: { title: 'Fixture', version: '1' }, paths: {} });
      return;
    default:
      res.statusCode = 404;
      res.setHeader('content-type', 'text/plain');
      res.end('not found');
  }
}

beforeAll(async () => {
  outside = await startFixture((_req, res) => res.end('private'), { host: '127.0.0.2' });
  site = await startFixture(fixtureSite);
  const cert = selfSignedCert({ commonName: 'localhost', altNames: ['localhost', '127.0.0.1'] });
  secure = await startFixture(
    (req, res) => {
      if (req.url === '/') {
        res.setHeader('content-type', 'text/html');
        res.setHeader('strict-transport-security', 'max-age=63072000');
        res.end('<html><head><title>Secure</title></head><body>ok</body></html>');
      } else {
        res.statusCode = 404;
        res.end();
      }
    },
    { tls: cert },
  );
  plain = await startFixture((req, res) => res.writeHead(301, { location: `https://127.0.0.1:${String(secure.port)}${req.url ?? '/'}` }).end());
});

afterAll(async () => {
  await Promise.all([site.close(), outside.close(), secure.close(), plain.close()]);
});

describe('collectSnapshot from a local fixture site', () => {
  it('fills every resource of the snapshot', async () => {
    const snap = await collectSnapshot(`${site.origin}/start`, LOOPBACK_ONLY);
    expect(snap.requestedUrl).toBe(`${site.origin}/start`);
    expect(Number.isNaN(Date.parse(snap.collectedAt))).toBe(false);

    expect(snap.page.status).toBe(200);
    expect(snap.page.finalUrl).toBe(`${site.origin}/`);
    expect(snap.page.redirectChain).toEqual([`${site.origin}/start`, `${site.origin}/`]);
    expect(snap.page.body).toContain('<h1>Fixture</h1>');
    expect(snap.page.setCookies).toEqual(['sid=1; Secure; HttpOnly']);

    expect(snap.robotsTxt?.status).toBe(200);
    expect(snap.robotsTxt?.body).toContain('User-agent: GPTBot');
    // The first Sitemap: line of robots.txt, not /sitemap.xml
    expect(snap.sitemapXml?.url).toBe(`${site.origin}/sitemaps/main.xml`);
    expect(snap.sitemapXml?.status).toBe(200);
    expect(snap.sitemapXml?.body).toContain('<urlset');
    expect(snap.securityTxt?.body).toContain('Contact: mailto:security@fixture.test');
    expect(snap.llmsTxt?.status).toBe(200);
    expect(snap.llmsTxt?.contentType).toBe('text/markdown');
    expect(snap.manifest?.url).toBe(`${site.origin}/app.webmanifest?v=1&x=2`);
    expect(JSON.parse(snap.manifest?.body ?? '')).toEqual({ name: 'Fixture', start_url: '/' });
    expect(snap.apiCatalog?.contentType).toBe('application/linkset+json');
    expect(snap.oauthAuthorizationServer?.status).toBe(404);
    expect(snap.oauthProtectedResource?.status).toBe(200);
    expect(snap.mcpServerCard?.status).toBe(200);
    expect(snap.mcpServerCard?.body).toContain('fixture-mcp');
    expect(snap.agentCard?.body).toContain('Fixture agent');
    // /openapi.json answers 404, /swagger.json 200: the first that answered 200
    expect(snap.openapi?.url).toBe(`${site.origin}/swagger.json`);
    expect(snap.openapi?.status).toBe(200);
    expect(snap.markdownNegotiation?.contentType).toBe('text/markdown');
    expect(snap.markdownNegotiation?.body).toBe('# Fixture\n\nHello.');
    // An http:// target has no TLS and no https-redirect probe
    expect(snap.tls).toBeUndefined();
    expect(snap.httpsRedirect).toBeUndefined();

    // Secondary resources are plain probes: nothing beyond the contract's Probe fields
    expect(Object.keys(snap.robotsTxt ?? {}).sort()).toEqual(
      ['url', 'status', 'headers', 'setCookies', 'contentType', 'body', 'truncated', 'wireBytes', 'bodyBytes'].sort(),
    );
  });

  it('sends every request with the scanner user agent, no cookie and no credentials; fetches no sub-resources', async () => {
    const before = site.requests.length;
    await collectSnapshot(`${site.origin}/`, LOOPBACK_ONLY);
    const sent = site.requests.slice(before);
    expect(sent.length).toBeGreaterThanOrEqual(14);
    for (const r of sent) {
      expect(r.method).toBe('GET');
      expect(r.headers['user-agent']).toBe('aduana-scanner/0.1 (+https://github.com/aduana; read-only assessment)');
      expect(r.headers.cookie).toBeUndefined();
      expect(r.headers.authorization).toBeUndefined();
    }
    expect(sent.map((r) => r.path)).not.toContain('/favicon.ico');
    expect(outside.connections()).toBe(0); // the <img> on 127.0.0.2 is never fetched
  });

  it('falls back to /sitemap.xml without a Sitemap: line, and sends resources through the same guard', async () => {
    const bare = await startFixture((req, res) => {
      if (req.url === '/') {
        res.setHeader('content-type', 'text/html');
        res.end(`<link rel="manifest" href="http://127.0.0.2:${String(outside.port)}/m.json"><title>bare</title>`);
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    try {
      const snap = await collectSnapshot(`${bare.origin}/`, LOOPBACK_ONLY);
      expect(snap.sitemapXml?.url).toBe(`${bare.origin}/sitemap.xml`);
      expect(snap.sitemapXml?.status).toBe(404);
      expect(snap.openapi?.url).toBe(`${bare.origin}/openapi.json`);
      expect(snap.openapi?.status).toBe(404);
      // A manifest on a refused address: a blocked probe, never a connection
      expect(snap.manifest?.url).toBe(`http://127.0.0.2:${String(outside.port)}/m.json`);
      expect(snap.manifest?.error).toBe('blocked');
      expect(outside.connections()).toBe(0);
    } finally {
      await bare.close();
    }
  });

  it('collects TLS and the http->https redirect for an https target', async () => {
    const snap = await collectSnapshot(`https://127.0.0.1:${String(secure.port)}/`, { ...LOOPBACK_ONLY, httpPort: plain.port });
    expect(snap.page.status).toBe(200);
    expect(snap.page.headers['strict-transport-security']).toBe('max-age=63072000');
    expect(snap.tls?.authorized).toBe(false);
    expect(snap.tls?.authorizationError).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    expect(snap.tls?.subjectAltNames).toContain('IP Address:127.0.0.1');
    expect(snap.tls?.daysRemaining).toBeGreaterThan(0);
    expect(snap.httpsRedirect).toEqual({
      url: `http://127.0.0.1:${String(plain.port)}/`,
      redirectsToHttps: true,
      status: 301,
      location: `https://127.0.0.1:${String(secure.port)}/`,
    });
  });
});

describe('collectSnapshot refusals and failures', () => {
  it('throws the guard error for a private target when private targets are refused (the default)', async () => {
    const before = site.connections();
    const error: unknown = await collectSnapshot(`${site.origin}/`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetGuardError);
    expect((error as NetGuardError).code).toBe('blocked');
    expect(site.connections()).toBe(before);
  });

  it('throws blocked when the page redirects to a refused address, without connecting to it', async () => {
    const hop = await startFixture((_req, res) => res.writeHead(302, { location: `http://127.0.0.2:${String(outside.port)}/` }).end());
    try {
      await expect(collectSnapshot(`${hop.origin}/`, LOOPBACK_ONLY)).rejects.toMatchObject({ name: 'NetGuardError', code: 'blocked' });
      expect(outside.connections()).toBe(0);
    } finally {
      await hop.close();
    }
  });

  it('refuses a name that resolves to loopback', async () => {
    const lookup: HostLookup = async () => [{ address: '127.0.0.1', family: 4 }];
    await expect(collectSnapshot(`http://looks-public.example:${String(site.port)}/`, { lookup })).rejects.toMatchObject({ code: 'blocked' });
  });

  it.each(['ftp://example.org/', 'javascript:alert(1)', 'data:text/html,hi', 'file:///etc/passwd', 'http://u:p@example.org/'])(
    'throws invalid_url for %s',
    async (url) => {
      await expect(collectSnapshot(url)).rejects.toMatchObject({ name: 'NetGuardError', code: 'invalid_url' });
    },
  );

  it('throws unreachable when nothing listens', async () => {
    const gone = await startFixture((_req, res) => res.end());
    const url = `${gone.origin}/`;
    await gone.close();
    const error: unknown = await collectSnapshot(url, LOOPBACK_ONLY).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CollectError);
    expect((error as CollectError).code).toBe('unreachable');
    expect((error as CollectError).page.error).toBe('refused');
  });

  it('throws timeout when the page does not answer in time, and fetches nothing else', async () => {
    const slow = await startFixture(() => undefined);
    try {
      const error: unknown = await collectSnapshot(`${slow.origin}/`, { ...LOOPBACK_ONLY, timeoutMs: 300 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CollectError);
      expect((error as CollectError).code).toBe('timeout');
      expect(slow.requests.map((r) => r.path)).toEqual(['/']);
    } finally {
      await slow.close();
    }
  });

  it('throws unreachable after too many redirects', async () => {
    const loop = await startFixture((req, res) => res.writeHead(302, { location: `${req.url ?? '/'}x` }).end());
    try {
      await expect(collectSnapshot(`${loop.origin}/`, { ...LOOPBACK_ONLY, maxRedirects: 2 })).rejects.toMatchObject({ name: 'CollectError', code: 'unreachable' });
      expect(loop.requests.map((r) => r.path)).toEqual(['/', '/x', '/xx']);
    } finally {
      await loop.close();
    }
  });

  it('keeps a secondary probe that times out as a probe with error timeout', async () => {
    const halfSlow = await startFixture((req, res) => {
      if (req.url === '/') res.end('<title>page</title>');
      else if (req.url !== '/llms.txt') res.writeHead(404).end();
      // /llms.txt never answers
    });
    try {
      const snap = await collectSnapshot(`${halfSlow.origin}/`, { ...LOOPBACK_ONLY, resourceTimeoutMs: 300 });
      expect(snap.page.status).toBe(200);
      expect(snap.llmsTxt?.error).toBe('timeout');
      expect(snap.llmsTxt?.status).toBeNull();
      expect(snap.robotsTxt?.status).toBe(404);
    } finally {
      await halfSlow.close();
    }
  });
});
