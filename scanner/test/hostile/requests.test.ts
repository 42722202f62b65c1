import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';
import { ERRORS } from '../../src/errors.js';
import type { RunningScanner } from '../../src/server.js';
import { post, startHostileScanner } from './hostile-scanner.js';

/** What the service accepts and refuses at its edge: paths, target URLs, redirects back to itself. */
let scanner: RunningScanner;
let site: FixtureServer;

beforeAll(async () => {
  scanner = await startHostileScanner();
  site = await startFixture((req, res) => {
    if (req.url === '/to-self') {
      res.writeHead(302, { location: `${scanner.url}/healthz` });
      res.end();
      return;
    }
    if (req.url === '/robots.txt' && req.headers.host?.startsWith('selfrobots.test') === true) {
      res.writeHead(302, { location: `${scanner.url}/healthz` });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="en"><head><title>t</title></head><body><h1>hello</h1></body></html>');
  });
});

afterAll(async () => {
  await scanner?.close();
  await site?.close();
});

describe('malformed paths answer the service error body', () => {
  for (const path of ['/api/super-scan/%E0%A4%A', '/%ZZ']) {
    it(`GET ${path}: 400 {error}, the path not echoed`, async () => {
      const res = await fetch(`${scanner.url}${path}`);
      const text = await res.text();
      expect(res.status).toBe(400);
      expect(JSON.parse(text)).toEqual({ error: ERRORS.invalid_path.message });
      expect(text).not.toContain('%');
    });
  }
});

describe('target URLs a browser would send', () => {
  it('accepts a Unicode host name and assesses its punycode form', async () => {
    const answer = await post(scanner, '/api/super-scan', { url: `http://münchen.test:${String(site.port)}/` });
    expect(answer.status).toBe(200);
    expect(answer.body['url']).toBe(`http://xn--mnchen-3ya.test:${String(site.port)}/`);
  });

  it('accepts a query with a stray %', async () => {
    const answer = await post(scanner, '/api/super-scan', { url: `${site.origin}/?q=100%&r=%zz` });
    expect(answer.status).toBe(200);
  });

  it('refuses port 0 with 400 invalid_url', async () => {
    const answer = await post(scanner, '/api/super-scan', { url: 'http://127.0.0.1:0/' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: ERRORS.invalid_url.message });
  });
});

describe('self-audit at every hop', () => {
  it('a redirect to the service itself is refused as self-audit', async () => {
    const answer = await post(scanner, '/api/super-scan', { url: `${site.origin}/to-self` });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: ERRORS.self_audit.message });
  });

  it('a secondary resource redirecting to the service is not fetched: its checks are not measured', async () => {
    const answer = await post(scanner, '/api/seo-scan', { url: `http://selfrobots.test:${String(site.port)}/` });
    expect(answer.status).toBe(200);
    const checks = answer.body['checks'] as { id: string; status: string }[];
    expect(checks.find((c) => c.id === 'seo.robots-txt')?.status).toBe('not_measured');
  });
});
