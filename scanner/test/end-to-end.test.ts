import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScannerApp } from '../src/app.js';
import { startFixture, type FixtureServer } from './helpers/fixture-server.js';

import { schemaErrors, validateAssessment } from './assessment-validator.js';
import { startApiSite, startBareSite, startCommerceSite, startGoodSite, type GoodSite } from './fixtures/sites.js';
import { testScannerConfig } from './helpers/test-config.js';

/**
 * Whole assessments through the real collector against fixture sites on 127.0.0.1, which only the explicit
 * SCANNER_ALLOW_PRIVATE=127.0.0.0/8 setting lets through.
 */
let good: GoodSite;
let bare: FixtureServer;
let api: FixtureServer;
let shop: FixtureServer;
let app: FastifyInstance;

const PER_TEST = { ratePerIpPerMinute: 1000, ratePerTargetPerHour: 1000, logLevel: 'silent' } as const;

beforeAll(async () => {
  [good, bare, api, shop] = await Promise.all([startGoodSite(), startBareSite(), startApiSite(), startCommerceSite()]);
  app = createScannerApp(testScannerConfig({ SCANNER_ALLOW_PRIVATE: '127.0.0.0/8' }, PER_TEST), {
    collect: { ca: [good.cert.cert], httpPort: good.http.port, resourceTimeoutMs: 3000 },
  });
});

afterAll(async () => {
  await app?.close();
  await Promise.all([good?.close(), bare?.close(), api?.close(), shop?.close()]);
});

async function assess(url: string, a: FastifyInstance = app) {
  const res = await a.inject({ method: 'POST', url: '/api/super-scan', payload: { url } });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

describe('end-to-end assessments of fixture sites', () => {
  it('a well-configured HTTPS site grades A', async () => {
    const { status, body } = await assess(`${good.https.origin}/`);
    expect(status).toBe(200);
    expect(schemaErrors(validateAssessment, body)).toBe('');
    // Time to first byte is the one verdict that depends on how busy the machine is: it is left out (no timing asserts).
    const scored = body.findings.filter((f: { severity: string; id: string }) => f.severity !== 'Informational' && f.id !== 'performance.ttfb');
    expect(scored).toEqual([]);
    expect(body).toMatchObject({ grade: 'A', profile: 'content', mode: 'static', commerceRisk: null, criticalIssues: [] });
    expect(body.globalScore).toBeGreaterThanOrEqual(90);
    for (const d of Object.values(body.dimensions) as { measured: boolean }[]) expect(d.measured).toBe(true);
    // Every scored check passed, certificate and http->https redirect included (the fixture CA is trusted).
    expect(body.checksSummary.passed).toBeGreaterThanOrEqual(body.checksSummary.total - 1);
    expect(body.checksSummary.total).toBeGreaterThanOrEqual(45);
  });

  it('a bare site grades low with the expected findings', async () => {
    const { status, body } = await assess(`${bare.origin}/`);
    expect(status).toBe(200);
    expect(schemaErrors(validateAssessment, body)).toBe('');
    expect(['D', 'F']).toContain(body.grade);
    expect(body.globalScore).toBeLessThan(60);
    const ids = body.findings.map((f: { id: string }) => f.id);
    for (const id of ['security.https', 'security.csp', 'security.frame-ancestors', 'security.x-content-type-options', 'security.cookies', 'security.version-disclosure', 'seo.title', 'seo.meta-description', 'accessibility.img-alt', 'accessibility.form-labels', 'accessibility.viewport', 'aiDiscovery.llms-txt', 'agentReadiness.content-without-js', 'privacy.third-party-trackers', 'privacy.privacy-policy-link']) {
      expect(ids).toContain(id);
    }
    expect(body.criticalIssues.map((c: { id: string }) => c.id).sort()).toEqual(['agentReadiness.content-without-js', 'security.https']);
    const version = body.findings.find((f: { id: string }) => f.id === 'security.version-disclosure');
    expect(version.evidence).toContain('Apache/2.4.41 (Ubuntu)');
  });

  it('detects an api under auto', async () => {
    const { status, body } = await assess(`${api.origin}/`);
    expect(status).toBe(200);
    expect(schemaErrors(validateAssessment, body)).toBe('');
    expect(body.profile).toBe('api');
    expect(body.commerceRisk).toBeNull();
    // API-only signals count for an api: their absence is scored, not Informational.
    const catalog = body.findings.find((f: { id: string }) => f.id === 'agentReadiness.api-catalog');
    expect(catalog.severity).toBe('Low');
  });

  it('detects commerce under auto and reports commerceRisk', async () => {
    const { status, body } = await assess(`${shop.origin}/`);
    expect(status).toBe(200);
    expect(schemaErrors(validateAssessment, body)).toBe('');
    expect(body.profile).toBe('commerce');
    expect(body.commerceRisk.signals).toContain('checkout pages not served over HTTPS');
    expect(body.commerceRisk.level).toBe('high');
  });

  it('audits SEO signals end to end', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/seo-scan', payload: { url: `${good.https.origin}/`, keyword: 'cafés especiais' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().keyword).toMatchObject({ inTitle: true, inH1: true, inMetaDescription: true, inUrl: false, inBody: true });
  });

  it('answers 502 for a target on a closed port', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const { status, body } = await assess(`http://127.0.0.1:${port}/`);
    expect(status).toBe(502);
    expect(Object.keys(body)).toEqual(['error']);
  });
});

describe('a target slower than the time-out', () => {
  it('answers 502', async () => {
    // Accepts the connection and never answers.
    const slow = await startFixture(() => undefined);
    const quick = createScannerApp(testScannerConfig({ SCANNER_ALLOW_PRIVATE: '127.0.0.0/8', SCANNER_FETCH_TIMEOUT_MS: '300' }, PER_TEST));
    try {
      const { status, body } = await assess(`${slow.origin}/`, quick);
      expect(status).toBe(502);
      expect(body).toEqual({ error: 'Target did not answer in time.' });
    } finally {
      await quick.close();
      await slow.close();
    }
  });
});

describe('with the default configuration (private destinations refused)', () => {
  let strict: FastifyInstance;
  beforeAll(() => {
    strict = createScannerApp(testScannerConfig({}, PER_TEST));
  });
  afterAll(async () => {
    await strict?.close();
  });

  const spellings = ['127.0.0.1', 'localhost', '[::1]', '0x7f000001', '2130706433', '0177.0.0.1', '127.1', '[::ffff:127.0.0.1]', '0.0.0.0', '10.0.0.1', '192.168.1.1', '100.64.0.1', '169.254.169.254'];
  for (const host of spellings) {
    it(`refuses ${host} with 400`, async () => {
      const before = bare.connections();
      const { status, body } = await assess(`http://${host}:${bare.port}/`, strict);
      expect(status).toBe(400);
      expect(Object.keys(body)).toEqual(['error']);
      expect(bare.connections()).toBe(before);
    });
  }
});
