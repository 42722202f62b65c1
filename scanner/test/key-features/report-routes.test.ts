import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '@aduana/shared';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';
import { removeDataDir, startKeyedScanner, type KeyedScanner } from '../helpers/keyed-scanner.js';
import { keep, pageCount, renderPngs, text } from '../report/pdf-tools.js';
import { postForPdf } from './pdf-call.js';

/**
 * The two report routes through the real service: a recorded assessment of a fixture landing page on loopback, its
 * PDF read back with poppler, the key's daily quota spent once per report, bad input refused before anything is
 * spent or recorded.
 */
const LANDING = `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8">
<title>Café orgânico torrado na hora | Torrefação São Jorge</title>
<meta name="description" content="Café orgânico especial, torrado na semana.">
<script>fbq('init', '1234567890');</script>
</head><body><h1>Café orgânico de verdade</h1><p>Peça já o seu café orgânico.</p><a href="/loja">Comprar agora</a></body></html>`;

const AGENCY = 'Agência Ação & Conversão';
const BIG = JSON.stringify({ url: `https://example.org/?q=${'x'.repeat(3 * 1024 * 1024)}` });
const ROUTES = ['/api/v1/paid-media-scans', '/api/v1/growth-scans'] as const;

let site: FixtureServer;
let sc: KeyedScanner;

beforeAll(async () => {
  site = await startFixture((req, res) => {
    if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(LANDING);
    res.writeHead(404).end();
  });
  sc = await startKeyedScanner({ keyDailyQuota: 2 });
});

afterAll(async () => {
  await sc?.close();
  await site?.close();
  if (sc) removeDataDir(sc.dataDir);
});

async function history(): Promise<{ scanId: string }[]> {
  return (await sc.call('GET', '/api/v1/scans')).body.items as { scanId: string }[];
}

describe('report routes: refusals', () => {
  it('401 without a key or with a bad one, whatever the body', async () => {
    for (const path of ROUTES) {
      for (const key of [null, 'nonsense', generateToken('sk')]) {
        const res = await postForPdf(sc, path, { url: `${site.origin}/` }, key);
        expect(res.status).toBe(401);
        expect(Object.keys(res.json as object)).toEqual(['error']);
      }
    }
  });

  it('400 {error} for extra properties, out-of-range fields, a bad URL or a private address; 413 for 3 MB; nothing recorded, no quota spent', async () => {
    const bad: unknown[] = [
      { url: `${site.origin}/`, colour: 'red' },
      { url: `${site.origin}/`, keyword: 'k'.repeat(201) },
      { url: `${site.origin}/`, keywords: Array.from({ length: 51 }, () => 'k') },
      { url: `${site.origin}/`, keywords: ['k'.repeat(101)] },
      { url: `${site.origin}/`, agency: 'a'.repeat(121) },
      { url: 'ftp://example.org/' },
      { url: 'http://user:pw@example.org/' },
      { url: 'http://10.0.0.1/' },
      { url: 'http://169.254.169.254/latest/meta-data/' },
      { agency: AGENCY },
    ];
    for (const path of ROUTES) {
      for (const body of bad) {
        const res = await postForPdf(sc, path, body);
        expect(res.status, `${path} ${JSON.stringify(body).slice(0, 80)}`).toBe(400);
        expect(Object.keys(res.json as object)).toEqual(['error']);
        expect(res.pdf.length).toBe(0);
      }
      const big = await sc.call('POST', path, { raw: BIG });
      expect(big.status).toBe(413);
      expect(Object.keys(big.body as object)).toEqual(['error']);
    }
    expect(await history()).toEqual([]);
  });
});

describe('report routes: the PDFs', () => {
  it('paid-media: a PDF of a recorded assessment naming the agency, URL, score, findings and scanId', async () => {
    const url = `${site.origin}/`;
    const res = await postForPdf(sc, '/api/v1/paid-media-scans', { url, agency: AGENCY, keywords: ['café orgânico'] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/pdf/);
    const scanId = res.headers.get('x-scan-id') ?? '';
    const recorded = (await sc.call('GET', `/api/v1/scans/${scanId}`)).body;
    expect(recorded.scanId).toBe(scanId);
    expect((await history()).map((h) => h.scanId)).toEqual([scanId]);
    const path = keep('route-paid-media', res.pdf);
    expect(readFileSync(path).subarray(0, 5).toString()).toBe('%PDF-');
    expect(pageCount(path)).toBeGreaterThanOrEqual(4);
    const t = text(path);
    expect(t).toContain(AGENCY);
    expect(t).toContain('Auditoria de mídia paga');
    expect(t).toContain(url);
    expect(t).toContain(scanId);
    expect(t).toContain(`${String(recorded.globalScore)} de 100 · nota ${String(recorded.grade)}`);
    expect(recorded.findings.length).toBeGreaterThan(0);
    for (const f of recorded.findings as { title: string }[]) expect(t).toContain(f.title.replace(/\s+/g, ' ').slice(0, 60));
    expect(t).toMatch(/Meta Pixel Encontrada/);
    expect(renderPngs(path)).toHaveLength(pageCount(path));
  });

  it('growth: the diagnostic of a new recorded assessment, with what was not measured', async () => {
    const url = `${site.origin}/`;
    const res = await postForPdf(sc, '/api/v1/growth-scans', { url, agency: AGENCY, keyword: 'café orgânico' });
    expect(res.status).toBe(200);
    const scanId = res.headers.get('x-scan-id') ?? '';
    const recorded = (await sc.call('GET', `/api/v1/scans/${scanId}`)).body;
    expect((await history()).map((h) => h.scanId)).toContain(scanId);
    const path = keep('route-growth', res.pdf);
    const t = text(path);
    expect(t).toContain('Diagnóstico de crescimento');
    expect(t).toContain(AGENCY);
    expect(t).toContain(url);
    expect(t).toContain(scanId);
    expect(t).toContain(`${String(recorded.globalScore)} de 100 · nota ${String(recorded.grade)}`);
    expect(t).toContain('O que não foi medido');
    for (const f of recorded.findings as { title: string }[]) expect(t).toContain(f.title.replace(/\s+/g, ' ').slice(0, 60));
    renderPngs(path);
  });

  it('the daily quota (2 here) is spent by the two reports: the next one is 429 with an integer Retry-After and records nothing', async () => {
    for (const path of ROUTES) {
      const res = await postForPdf(sc, path, { url: `${site.origin}/` });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(Object.keys(res.json as object)).toEqual(['error']);
    }
    expect(await history()).toHaveLength(2);
  });
});
