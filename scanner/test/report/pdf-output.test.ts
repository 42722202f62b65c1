import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assess } from '../../src/assessment/assess.js';
import type { Assessment } from '../../src/assessment/assessment.js';
import { collectSnapshot } from '../../src/collect/collect-snapshot.js';
import { renderGrowthReport, renderPaidMediaReport } from '../../src/report/index.js';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';
import { keep, pdfInfo, text } from './pdf-tools.js';

/** What the pdfkit document carries besides its pages: stable bytes, its information, text outside WinAnsi. */
let site: FixtureServer;
let assessment: Assessment;

beforeAll(async () => {
  site = await startFixture((_req, res) => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Página</title><h1>Olá</h1>'));
  const snapshot = await collectSnapshot(`${site.origin}/`, { allowPrivate: ['127.0.0.1/32'] });
  assessment = assess(snapshot, { requestId: 'pdf-output', scanId: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d' }).assessment;
});

afterAll(async () => {
  await site.close();
});

describe('the reports as PDF documents', () => {
  it('one recorded assessment renders to the same bytes every time', () => {
    for (const render of [renderPaidMediaReport, renderGrowthReport]) {
      const request = { url: assessment.url, agency: 'Agência São João' };
      const first = render({ assessment, request });
      expect(render({ assessment, request }).equals(first)).toBe(true);
    }
  });

  it('names the report, the brand, the scanId and the assessment’s date in the document information', () => {
    const info = pdfInfo(keep('info-growth', renderGrowthReport({ assessment, request: { url: assessment.url, agency: 'Agência São João' } })));
    expect(info).toMatch(/^Title:\s+Diagnóstico de crescimento · /m);
    expect(info).toMatch(/^Author:\s+Agência São João$/m);
    expect(info).toMatch(new RegExp(`^Subject:\\s+scanId ${assessment.scanId}$`, 'm'));
    expect(info).toMatch(/^Producer:\s+aduana scanner$/m);
    const year = new Date(assessment.timestamp).getUTCFullYear();
    expect(info).toMatch(new RegExp(`^CreationDate:.*${String(year)}`, 'm'));
  });

  it('prints a character outside WinAnsi as "?" and keeps decomposed accents', () => {
    const odd = { ...assessment, url: `${site.origin}/日本/🚀`, findings: [] };
    const t = text(keep('winansi', renderPaidMediaReport({ assessment: odd, request: { url: odd.url, agency: 'Ag\u0065\u0301ncia Cafe\u0301' } })));
    expect(t).toContain(`${site.origin}/??/?`);
    expect(t).toContain('Agéncia Café');
  });
});
