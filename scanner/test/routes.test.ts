import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { NetGuardError } from '@aduana/shared';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createScannerApp } from '../src/app.js';
import { CollectError } from '../src/collect/index.js';
import { type SCANNER_CONFIG } from '../src/config.js';
import type { CollectRequest, SnapshotSource } from '../src/plugins/snapshot-source.js';
import { SCORING_VERSION } from '../src/scoring/scoring.js';
import type { Snapshot } from '../src/snapshot/snapshot.js';
import { schemaErrors, validateAssessment } from './assessment-validator.js';
import { goodSnapshot, page } from './fixtures/snapshots.js';
import { testScannerConfig } from './helpers/test-config.js';

type Overrides = Partial<Record<keyof typeof SCANNER_CONFIG, string | number | boolean>>;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** Like the real collector, vets the page's first hop (which takes the per-target rate token). */
const vetted = (url: string, request?: CollectRequest): void =>
  request?.onHop?.({ url: new URL(url), hostname: new URL(url).hostname, isIpLiteral: false, addresses: [{ address: '203.0.113.80', family: 4 }] }, 0);
const fixed: SnapshotSource = {
  collect: async (url, request) => {
    vetted(url, request);
    return { ...goodSnapshot(), requestedUrl: url };
  },
};

function make(overrides: Overrides = {}, snapshots: SnapshotSource = fixed): FastifyInstance {
  app = createScannerApp(testScannerConfig({}, { logLevel: 'silent', ...overrides }), { snapshots });
  return app;
}

const scan = (a: FastifyInstance, body: unknown, headers: Record<string, string> = {}) =>
  a.inject({ method: 'POST', url: '/api/super-scan', payload: body as object, headers });

describe('GET /healthz', () => {
  it('answers 200', async () => {
    const res = await make().inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok' });
  });
});

describe('POST /api/super-scan', () => {
  it('returns an Assessment of exactly the documented shape, correlated with the edge request id', async () => {
    const res = await scan(make(), { url: 'https://cafe.example/' }, { 'x-request-id': 'edge-123' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(schemaErrors(validateAssessment, body)).toBe('');
    expect(body).toMatchObject({ requestId: 'edge-123', url: 'https://cafe.example/', mode: 'static', profile: 'content', grade: 'A', commerceRisk: null });
    expect(res.headers['x-request-id']).toBe('edge-123');
    // The scoring algorithm's version travels with every assessment, so stored scores stay comparable.
    expect(body.scoringVersion).toBe(SCORING_VERSION);
    expect(body.scanId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('honours an explicit profile', async () => {
    const res = await scan(make(), { url: 'https://cafe.example/', profile: 'commerce' });
    expect(res.json()).toMatchObject({ profile: 'commerce', commerceRisk: { level: 'low' } });
  });

  const invalid: [string, unknown][] = [
    ['extra properties', { url: 'https://cafe.example/', extra: true }],
    ['a url over 2048 characters', { url: `https://cafe.example/${'a'.repeat(2048)}` }],
    ['ftp:', { url: 'ftp://cafe.example/file' }],
    ['javascript:', { url: 'javascript:alert(1)' }],
    ['data:', { url: 'data:text/html,<h1>x</h1>' }],
    ['a missing url', { profile: 'auto' }],
    ['a relative url', { url: '/just/a/path' }],
    ['a url with credentials', { url: 'https://user:pass@cafe.example/' }],
    ['an unknown profile', { url: 'https://cafe.example/', profile: 'shop' }],
    ['a non-string url', { url: 42 }],
  ];
  for (const [what, body] of invalid) {
    it(`refuses ${what} with 400 {error}`, async () => {
      const res = await scan(make(), body);
      expect(res.statusCode).toBe(400);
      expect(Object.keys(res.json())).toEqual(['error']);
      expect(typeof res.json().error).toBe('string');
    });
  }

  it('accepts a url of exactly 2048 characters', async () => {
    const url = `https://cafe.example/${'a'.repeat(2048 - 'https://cafe.example/'.length)}`;
    expect(url.length).toBe(2048);
    expect((await scan(make(), { url })).statusCode).toBe(200);
  });

  it('refuses a body that is not JSON with 400, an oversized one with 413, another media type with 415, an unknown route with 404', async () => {
    const a = make();
    const bad = await a.inject({ method: 'POST', url: '/api/super-scan', payload: '{"url":', headers: { 'content-type': 'application/json' } });
    expect([bad.statusCode, Object.keys(bad.json())]).toEqual([400, ['error']]);
    const big = await a.inject({ method: 'POST', url: '/api/super-scan', payload: JSON.stringify({ url: 'https://a.example/', pad: 'x'.repeat(1024 * 1024) }), headers: { 'content-type': 'application/json' } });
    expect([big.statusCode, Object.keys(big.json())]).toEqual([413, ['error']]);
    const text = await a.inject({ method: 'POST', url: '/api/super-scan', payload: 'url=https://a.example/', headers: { 'content-type': 'text/plain' } });
    expect([text.statusCode, Object.keys(text.json())]).toEqual([415, ['error']]);
    const missing = await a.inject({ method: 'GET', url: '/nope' });
    expect([missing.statusCode, missing.json()]).toEqual([404, { error: 'Route not found.' }]);
  });

  it('names the configured body limit in the 413 message', async () => {
    const over = async (a: FastifyInstance, bytes: number): Promise<unknown> =>
      (await a.inject({ method: 'POST', url: '/api/super-scan', payload: JSON.stringify({ url: 'https://a.example/', pad: 'x'.repeat(bytes) }), headers: { 'content-type': 'application/json' } })).json();
    expect(await over(make(), 1024 * 1024)).toEqual({ error: 'Request body exceeds the 1 MiB limit.' });
    await app?.close();
    expect(await over(make({ bodyLimitBytes: 2048 }), 2048)).toEqual({ error: 'Request body exceeds the 2 KiB limit.' });
    await app?.close();
    expect(await over(make({ bodyLimitBytes: 1500 }), 1500)).toEqual({ error: 'Request body exceeds the 1500 bytes limit.' });
  });

  it('refuses a self-audit of a PUBLIC_HOSTNAMES host with 400', async () => {
    const res = await scan(make({ publicHostnames: 'scan.aduana.example, other.example' }), { url: 'https://SCAN.aduana.example./x' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/Self-audit/);
  });

  it("refuses a self-audit of the service's own listener with 400", async () => {
    const a = make({ allowPrivate: '127.0.0.0/8', host: '127.0.0.1', port: 0 });
    await a.listen({ host: '127.0.0.1', port: 0 });
    const { port } = a.server.address() as { port: number };
    for (const host of ['127.0.0.1', 'localhost']) {
      const res = await scan(a, { url: `http://${host}:${port}/healthz` });
      expect(res.statusCode, host).toBe(400);
      expect(res.json().error).toMatch(/Self-audit/);
    }
  });

  it('answers 400 when the collector refuses the destination, 502 when the target is unreachable or times out', async () => {
    const failing = (err: Error): SnapshotSource => ({ collect: async () => { throw err; } });
    const blocked = await scan(make({}, failing(new NetGuardError('blocked', 'private', 'http://10.0.0.1/'))), { url: 'http://10.0.0.1/' });
    expect([blocked.statusCode, blocked.json().error]).toEqual([400, expect.stringMatching(/private/)]);
    await app?.close();
    const down = await scan(make({}, failing(new CollectError('unreachable', 'refused', page('')))), { url: 'https://down.example/' });
    expect([down.statusCode, Object.keys(down.json())]).toEqual([502, ['error']]);
    await app?.close();
    const slow = await scan(make({}, failing(new CollectError('timeout', 'slow', page('')))), { url: 'https://slow.example/' });
    expect([slow.statusCode, slow.json().error]).toEqual([502, expect.stringMatching(/in time/)]);
  });
});

describe('rate limits (429 with an integer Retry-After)', () => {
  const expect429 = (res: Awaited<ReturnType<typeof scan>>, message: RegExp) => {
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(res.json().error).toMatch(message);
  };

  it('per IP: the 11th assessment in a minute is refused', async () => {
    const a = make();
    for (let i = 0; i < 10; i++) expect((await scan(a, { url: `https://t${i}.example/` })).statusCode).toBe(200);
    expect429(await scan(a, { url: 'https://t10.example/' }), /this address/);
    // Another client is not affected.
    const other = await a.inject({ method: 'POST', url: '/api/super-scan', payload: { url: 'https://t11.example/' }, remoteAddress: '203.0.113.9' });
    expect(other.statusCode).toBe(200);
  });

  it('per target: the 31st assessment of one host in an hour is refused, whoever asks', async () => {
    const a = make({ ratePerIpPerMinute: 1000 });
    for (let i = 0; i < 30; i++) {
      const res = await a.inject({ method: 'POST', url: '/api/super-scan', payload: { url: `https://same.example/p${i}` }, remoteAddress: `198.51.100.${i}` });
      expect(res.statusCode).toBe(200);
    }
    const res = await a.inject({ method: 'POST', url: '/api/super-scan', payload: { url: 'https://SAME.example/' }, remoteAddress: '198.51.100.200' });
    expect429(res, /this target/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(60);
  });

  it('platform: beyond the service-wide budget every caller is refused', async () => {
    const a = make({ ratePlatformPerMinute: 3, ratePerIpPerMinute: 1000 });
    for (let i = 0; i < 3; i++) expect((await scan(a, { url: `https://p${i}.example/` })).statusCode).toBe(200);
    expect429(await a.inject({ method: 'POST', url: '/api/super-scan', payload: { url: 'https://p9.example/' }, remoteAddress: '192.0.2.77' }), /capacity/);
  });

  it('the SEO audit counts against the same limits', async () => {
    const a = make({ ratePerIpPerMinute: 1 });
    expect((await scan(a, { url: 'https://x.example/' })).statusCode).toBe(200);
    expect429(await a.inject({ method: 'POST', url: '/api/seo-scan', payload: { url: 'https://y.example/' } }), /this address/);
  });
});

describe('POST /api/seo-scan', () => {
  const seo = (a: FastifyInstance, body: unknown) => a.inject({ method: 'POST', url: '/api/seo-scan', payload: body as object });

  it('reports observable signals and where the keyword appears (title, h1, meta description, URL, body)', async () => {
    const withSlug: SnapshotSource = { collect: async (url): Promise<Snapshot> => ({ ...goodSnapshot({ page: { ...goodSnapshot().page, finalUrl: 'https://cafe.example/cafes-especiais' } }), requestedUrl: url }) };
    const res = await seo(make({}, withSlug), { url: 'https://cafe.example/cafes-especiais', keyword: 'Cafés Especiais' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.keyword).toEqual({ term: 'Cafés Especiais', inTitle: true, inH1: true, inMetaDescription: true, inUrl: true, inBody: true, bodyOccurrences: 1 });
    expect(body.signals).toMatchObject({ title: 'Aduana Café: cafés especiais torrados', canonical: 'https://cafe.example/', lang: 'pt-BR', h1: ['Cafés especiais torrados na semana'] });
    // The deep URL declares the home page as canonical: the one SEO finding (Lighthouse canonical).
    expect(body.findings.filter((f: { severity: string }) => f.severity !== 'Informational').map((f: { id: string }) => f.id)).toEqual(['seo.canonical']);
    expect(body.score).toBeLessThan(100);
    expect(body.checks.every((c: { id: string }) => c.id.startsWith('seo.'))).toBe(true);
  });

  it('reports a keyword that is nowhere', async () => {
    const res = await seo(make(), { url: 'https://cafe.example/', keyword: 'chá verde' });
    expect(res.json().keyword).toMatchObject({ inTitle: false, inH1: false, inMetaDescription: false, inUrl: false, inBody: false, bodyOccurrences: 0 });
  });

  it('has no keyword report without a keyword, and refuses invalid URLs and over-long keywords with 400', async () => {
    const a = make();
    expect((await seo(a, { url: 'https://cafe.example/' })).json().keyword).toBeUndefined();
    expect((await seo(a, { url: 'javascript:alert(1)' })).statusCode).toBe(400);
    expect((await seo(a, { url: 'https://cafe.example/', keyword: 'k'.repeat(201) })).statusCode).toBe(400);
  });
});

describe('observability', () => {
  it('publishes one assessment event per super-scan on the diagnostics channel', async () => {
    const events: unknown[] = [];
    const listener = (message: unknown) => events.push(message);
    subscribe('aduana:scanner:assessment', listener);
    try {
      await scan(make(), { url: 'https://cafe.example/?token=secret' }, { 'x-request-id': 'obs-1' });
    } finally {
      unsubscribe('aduana:scanner:assessment', listener);
    }
    expect(events).toEqual([{ kind: 'super-scan', requestId: 'obs-1', target: 'https://cafe.example', score: 100, grade: 'A', profile: 'content', erroredChecks: [] }]);
  });
});
