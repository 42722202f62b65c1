import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assess } from '../../src/assessment/assess.js';
import type { Assessment, Finding } from '../../src/assessment/assessment.js';
import { DEFAULT_JUDGING_LIMITS } from '../../src/checks/judging-limits.js';
import { collectSnapshot } from '../../src/collect/collect-snapshot.js';
import {
  GROWTH_REQUEST_SCHEMA,
  landingSignals,
  renderGrowthReport,
  renderPaidMediaReport,
  reportTerms,
  type GrowthRequest,
  type LandingSignals,
} from '../../src/report/index.js';
import { startFixture, type FixtureServer } from '../helpers/fixture-server.js';
import { keep, layoutText, pageCount, pdfInfo, renderPngs, text, words, type Word } from './pdf-tools.js';

/**
 * The reports from a real assessment of a fixture landing page on loopback, read back with poppler: the text must
 * hold what the assessment says, pages are rendered to PNG under test-artifacts/reports/, and a report stuffed with
 * long values keeps every word inside the page margins and apart from every other word.
 */
const LANDING = `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8">
<title>Café orgânico torrado na hora | Torrefação São Jorge</title>
<meta name="description" content="Café orgânico especial, torrado na semana e entregue em São Paulo.">
<meta name="viewport" content="width=device-width, initial-scale=1">
<script async src="https://www.googletagmanager.com/gtag/js?id=G-ABC123"></script>
<script>window.dataLayer=[];function gtag(){dataLayer.push(arguments)};gtag('js', new Date());gtag('config', 'G-ABC123');</script>
<script>!function(f){f.fbq=function(){}}(window);fbq('init', '1234567890');</script>
</head><body><h1>Café orgânico de verdade</h1>
<p>Nosso café orgânico vem de pequenos produtores. Peça já o seu café orgânico.</p>
<a href="/loja">Comprar agora</a> <a href="https://wa.me/5511999999999">Fale conosco no WhatsApp</a>
<form action="/contato" method="post"><input name="email"><button type="submit">Solicitar orçamento</button></form>
</body></html>`;

let site: FixtureServer;
let assessment: Assessment;
let signals: LandingSignals;
const request: GrowthRequest = {
  url: '',
  keyword: 'café orgânico',
  keywords: ['café orgânico', 'torrefação', 'assinatura de café'],
  agency: 'Agência Ação & Conversão',
};

beforeAll(async () => {
  site = await startFixture((req, res) => {
    if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(LANDING);
    res.writeHead(404).end();
  });
  request.url = `${site.origin}/`;
  const snapshot = await collectSnapshot(request.url, { allowPrivate: ['127.0.0.1/32'] });
  assessment = assess(snapshot, { requestId: 'report-test', scanId: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b' }).assessment;
  signals = landingSignals(snapshot, reportTerms(request), DEFAULT_JUDGING_LIMITS);
});

afterAll(async () => {
  await site.close();
});

describe('GrowthRequest schema', () => {
  const validate = new Ajv({ allErrors: false }).compile(GROWTH_REQUEST_SCHEMA);
  it('accepts the documented fields within their limits', () => {
    expect(validate({ url: 'https://example.com/', keyword: 'k'.repeat(200), keywords: Array.from({ length: 50 }, () => 'k'.repeat(100)), agency: 'a'.repeat(120) })).toBe(true);
    expect(validate({ url: 'https://example.com/' })).toBe(true);
  });
  it.each([
    ['an extra property', { url: 'https://example.com/', color: 'red' }],
    ['no url', { agency: 'x' }],
    ['a url over 2048 characters', { url: `https://example.com/${'a'.repeat(2040)}` }],
    ['a keyword over 200 characters', { url: 'https://example.com/', keyword: 'k'.repeat(201) }],
    ['51 keywords', { url: 'https://example.com/', keywords: Array.from({ length: 51 }, () => 'k') }],
    ['a keyword of the list over 100 characters', { url: 'https://example.com/', keywords: ['k'.repeat(101)] }],
    ['an agency over 120 characters', { url: 'https://example.com/', agency: 'a'.repeat(121) }],
    ['a keywords list that is not of strings', { url: 'https://example.com/', keywords: [1] }],
  ])('refuses %s', (_what, body) => {
    expect(validate(body)).toBe(false);
  });
});

describe('paid-media report', () => {
  it('is a PDF of the assessment: agency, URL, score, grade, scanId, findings, tags and keywords, Portuguese intact', () => {
    const path = keep('paid-media', renderPaidMediaReport({ assessment, request, signals }));
    expect(readFileSync(path).subarray(0, 5).toString()).toBe('%PDF-');
    expect(pageCount(path)).toBeGreaterThanOrEqual(4);
    expect(pdfInfo(path)).toMatch(/Page size:\s+595\.28 x 841\.89 pts \(A4\)/);
    const t = text(path);
    expect(t).toContain('Agência Ação & Conversão');
    expect(t).toContain('Auditoria de mídia paga');
    expect(t).toContain(request.url);
    expect(t).toContain(assessment.scanId);
    expect(t).toContain(`${String(assessment.globalScore)} de 100 · nota ${assessment.grade}`);
    expect(t).toContain(`Nota ${assessment.grade}`);
    expect(assessment.findings.length).toBeGreaterThan(0);
    for (const finding of assessment.findings) expect(t).toContain(finding.title.replace(/\s+/g, ' ').slice(0, 60));
    expect(t).toContain('As três ações mais urgentes');
    // Tags found on the page, and the ones that were not.
    expect(t).toMatch(/GA4 Encontrada/);
    expect(t).toMatch(/Meta Pixel Encontrada/);
    expect(t).toMatch(/TikTok Pixel Não encontrada/);
    expect(t).toMatch(/Formulários 1/);
    expect(t).toContain('“Comprar agora”');
    // Keyword presence: in the title, the H1, the description, not the URL, three times in the text.
    const rows = layoutText(path);
    expect(rows).toMatch(/café orgânico\s+Sim\s+Sim\s+Sim\s+Não\s+3×/);
    expect(rows).toMatch(/assinatura de café\s+Não\s+Não\s+Não\s+Não\s+Não/);
    if (assessment.findings.some((f) => f.effort === 'Médio')) expect(t).toContain('esforço Médio');
    const pngs = renderPngs(path);
    expect(pngs).toHaveLength(pageCount(path));
    for (const png of pngs) expect(readFileSync(png).subarray(1, 4).toString()).toBe('PNG');
  });

  it('names our brand when no agency white-labels it', () => {
    const path = keep('paid-media-unbranded', renderPaidMediaReport({ assessment, request: { url: request.url }, signals }));
    expect(text(path)).toContain('aduana · Auditoria de mídia paga');
  });
});

describe('growth report', () => {
  it('covers SEO, AI discovery and media, and names what needs ad-platform, search-analytics or SERP data', () => {
    const path = keep('growth', renderGrowthReport({ assessment, request, signals }));
    expect(pageCount(path)).toBeGreaterThanOrEqual(4);
    const t = text(path);
    expect(t).toContain('Diagnóstico de crescimento');
    expect(t).toContain('Agência Ação & Conversão');
    expect(t).toContain(assessment.scanId);
    expect(t).toContain('SEO, descoberta por IA e mídia');
    expect(t).toMatch(new RegExp(`SEO ${String(assessment.dimensions.seo.score)}/100`));
    expect(t).toContain('O que não foi medido');
    expect(t).toContain('Plataformas de anúncios');
    expect(t).toContain('Google Search Console');
    expect(t).toContain('Dados de SERP');
    expect(t).toContain('A posição de “café orgânico” nas buscas não foi medida');
    renderPngs(path);
  });
});

describe('a long report', () => {
  const LONG_URL = `https://www.um-dominio-bem-comprido-para-testar.com.br/${'caminho-muito-longo/'.repeat(96)}fim`.slice(0, 2048);
  const AGENCY = 'Agência Internacional de Performance, Mídia Programática, Conteúdo & Crescimento Acelerado de Marcas São João Ltda. ME'.slice(0, 120);
  const severities = ['High', 'Medium', 'Low', 'Informational'] as const;
  const audiences = ['executive', 'marketing', 'development', 'security'] as const;
  const findings: Finding[] = Array.from({ length: 60 }, (_, i) => ({
    id: `test.finding-${String(i)}`,
    pillar: 'readiness',
    title: `Achado ${String(i)}: ${'um título bastante longo que descreve o problema com detalhes e acentuação '.repeat(3)}`,
    evidence: `Observado em ${LONG_URL}?q=${'x'.repeat(300)} e ${'evidência repetida '.repeat(60)}`,
    impact: 'Impacto técnico.',
    businessImpact: `${'Impacto no negócio com muitas palavras '.repeat(20)}fim.`,
    recommendation: `${'Recomendação detalhada: configure o cabeçalho e revise a página '.repeat(15)}fim.`,
    audience: [audiences[i % 4] ?? 'marketing'],
    severity: severities[i % 4] ?? 'Low',
    priority: (i % 4) + 1,
    effort: i % 2 === 0 ? 'Baixo' : 'Médio',
    references: [],
  }));

  it('keeps every word inside the margins and apart from the others, cutting long text with an ellipsis', () => {
    const long: Assessment = { ...assessment, url: LONG_URL, findings };
    const longRequest: GrowthRequest = { url: LONG_URL, agency: AGENCY, keyword: 'k'.repeat(200), keywords: Array.from({ length: 50 }, (_, i) => `${String(i)} ${'termo '.repeat(16)}`.slice(0, 100)) };
    const longSignals: LandingSignals = { ...signals, keywords: reportTerms(longRequest).map((term) => ({ term, inTitle: false, inH1: false, inMetaDescription: false, inUrl: false, inBody: true, bodyOccurrences: 12 })) };
    for (const [name, render] of [['paid-media-long', renderPaidMediaReport], ['growth-long', renderGrowthReport]] as const) {
      const path = keep(name, render({ assessment: long, request: longRequest, signals: longSignals }));
      const { pages, words: all } = words(path);
      expect(pages.length).toBeGreaterThan(10);
      const outside = all
        .filter((w) => {
          const page = pages[w.page - 1];
          return w.xMin < 48 - 0.5 || w.xMax > (page?.width ?? 0) - 48 + 0.5 || w.yMax > (page?.height ?? 0) - 10;
        })
        .map((w) => `p${String(w.page)} "${w.text}" x ${String(w.xMin)}–${String(w.xMax)} y ${String(w.yMax)}`);
      expect(outside, name).toEqual([]);
      expect(overlaps(all), name).toEqual([]);
      const t = text(path);
      expect(t).toContain('…');
      // 60 findings, each under its audience; the cover, summary and footers carry the long agency name.
      for (const f of findings) expect(t).toContain(`Achado ${f.id.split('-')[1] ?? ''}:`);
      expect(t).toContain(AGENCY.slice(0, 40));
      renderPngs(path, 40);
    }
  }, 120_000);
});

/** Pairs of words on one page whose boxes intersect by more than a hair. */
function overlaps(all: readonly Word[]): string[] {
  const found: string[] = [];
  const byPage = new Map<number, Word[]>();
  for (const w of all) {
    const list = byPage.get(w.page);
    if (list === undefined) byPage.set(w.page, [w]);
    else list.push(w);
  }
  for (const [page, list] of byPage) {
    const sorted = [...list].sort((a, b) => a.yMin - b.yMin);
    for (let i = 0; i < sorted.length; i++) {
      const a = sorted[i];
      if (a === undefined) continue;
      for (let j = i + 1; j < sorted.length; j++) {
        const b = sorted[j];
        if (b === undefined || b.yMin >= a.yMax - 1) break;
        const x = Math.min(a.xMax, b.xMax) - Math.max(a.xMin, b.xMin);
        const y = Math.min(a.yMax, b.yMax) - Math.max(a.yMin, b.yMin);
        if (x > 1 && y > 1) found.push(`p${String(page)} "${a.text}" / "${b.text}"`);
      }
    }
  }
  return found.slice(0, 20);
}
