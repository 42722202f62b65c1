import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/registry.js';
import { BARE_HTML } from './fixtures/pages.js';
import { startFixture, type FixtureServer } from './helpers/fixture-server.js';
import { selfSignedCert } from '../../shared/test/helpers/self-signed-cert.js';
import { removeDataDir, startKeyedScanner, type KeyedScanner } from './helpers/keyed-scanner.js';

/** Every check's result in the Assessment (`checks`), through the real service, public and recorded. */
let site: FixtureServer;
let sc: KeyedScanner;

const ROBOTS = 'User-agent: GPTBot\nDisallow: /\n\nUser-agent: CCBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n';

beforeAll(async () => {
  site = await startFixture((req, res) => {
    if (req.url === '/robots.txt') res.writeHead(200, { 'content-type': 'text/plain' }).end(ROBOTS);
    else if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(BARE_HTML);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  sc = await startKeyedScanner({ schedulerTickMs: 3_600_000 });
});

afterAll(async () => {
  await sc?.close();
  await site?.close();
  if (sc) removeDataDir(sc.dataDir);
});

type Report = { id: string; dimension: string; pillar: string; status: string; evidence: string; version: number };

describe('checks: every check that ran, passed ones included', () => {
  it('lists each registered check once with its dimension, pillar, status, evidence and version', async () => {
    const res = await sc.call('POST', '/api/super-scan', { key: null, body: { url: `${site.origin}/` } });
    expect(res.status).toBe(200);
    const checks = res.body.checks as Report[];
    expect(checks.map((c) => c.id).sort()).toEqual(CHECKS.map((c) => c.id).sort());
    for (const c of checks) {
      const check = CHECKS.find((x) => x.id === c.id);
      expect(c).toMatchObject({ dimension: check?.dimension, pillar: check?.pillar, version: check?.version });
      expect(['pass', 'fail', 'informational', 'not_applicable', 'not_measured', 'error']).toContain(c.status);
    }
    expect(checks.some((c) => c.status === 'pass')).toBe(true);
    // Findings stay the failures: every failed check has its finding, and no passed one has.
    const findingIds = new Set((res.body.findings as { id: string }[]).map((f) => f.id));
    for (const c of checks.filter((x) => x.status === 'fail')) expect(findingIds.has(c.id), c.id).toBe(true);
    for (const c of checks.filter((x) => x.status === 'pass')) expect(findingIds.has(c.id), c.id).toBe(false);
  });

  it('a site that blocks only AI training crawlers is told which it blocks and which answer engines it lets in', async () => {
    const res = await sc.call('POST', '/api/v1/scans', { body: { url: `${site.origin}/` } });
    expect(res.status).toBe(200);
    const crawlers = (res.body.checks as Report[]).find((c) => c.id === 'aiDiscovery.ai-crawlers');
    expect(crawlers?.status).toBe('pass');
    expect(crawlers?.evidence).toContain('GPTBot: blocked');
    expect(crawlers?.evidence).toContain('CCBot: blocked');
    expect(crawlers?.evidence).toContain('OAI-SearchBot: allowed');
    expect(crawlers?.evidence).toContain('PerplexityBot: allowed');
    expect((res.body.findings as { id: string }[]).some((f) => f.id === 'aiDiscovery.ai-crawlers')).toBe(false);
    // The recorded assessment keeps them.
    const recorded = await sc.call('GET', `/api/v1/scans/${res.body.scanId as string}`);
    expect(recorded.body.checks).toEqual(res.body.checks);
  });
});

describe('the address guard and localhost names', () => {
  it('refuses localhost. in any case, and names under it, with 400 before resolving them', async () => {
    const strict = await startKeyedScanner({ allowPrivate: '', schedulerTickMs: 3_600_000 });
    try {
      for (const url of ['http://localhost./', 'http://LOCALHOST./', 'https://LocalHost.:8443/x', 'http://shop.localhost./']) {
        const res = await strict.call('POST', '/api/super-scan', { key: null, body: { url } });
        expect(res.status, url).toBe(400);
        expect(res.body).toEqual({ error: 'Destination refused: the URL resolves to a private, loopback or reserved address.' });
      }
    } finally {
      await strict.close();
      removeDataDir(strict.dataDir);
    }
  });
});

describe('forms whose action leaves HTTPS, through the real collector', () => {
  it('a shop page whose card form posts to http://, or to an https action that redirects to http://, is a High finding naming the action', async () => {
    let origin = '';
    const shop = await startFixture(
      (req, res) => {
        if (req.url === '/') {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
            `<!doctype html><html lang="pt-BR"><head><title>Loja</title></head><body><h1>Pagamento</h1>
             <form action="http://pay.example/charge" method="post"><input name="card_number" autocomplete="cc-number"><button>Pagar</button></form>
             <form action="/checkout" method="post"><input type="email" name="email"><button>Continuar</button></form>
             <form action="/search"><input type="search" name="q"></form></body></html>`,
          );
        } else if (req.url === '/checkout') {
          res.writeHead(302, { location: `${origin.replace('https:', 'http:')}/checkout` }).end();
        } else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      },
      { tls: selfSignedCert({ commonName: '127.0.0.1', altNames: ['127.0.0.1'] }) },
    );
    origin = shop.origin;
    try {
      const res = await sc.call('POST', '/api/super-scan', { key: null, body: { url: `${shop.origin}/` } });
      expect(res.status).toBe(200);
      const finding = (res.body.findings as { id: string; severity: string; evidence: string }[]).find((f) => f.id === 'security.form-action');
      expect(finding?.severity).toBe('High');
      expect(finding?.evidence).toContain('http://pay.example/charge');
      expect(finding?.evidence).toContain(`${shop.origin}/checkout → ${shop.origin.replace('https:', 'http:')}/checkout`);
      // The search form stays on HTTPS; its action was asked where it leads, nothing was submitted.
      expect(finding?.evidence).not.toContain('/search');
      expect(shop.requests.filter((r) => r.path === '/checkout').map((r) => r.method)).toEqual(['GET']);
    } finally {
      await shop.close();
    }
  });
});
