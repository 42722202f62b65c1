import type { Assessment } from '../assessment/assessment.js';
import type { DIMENSIONS } from '../checks/check.js';
import { drawCover } from './cover-page.js';
import type { DocumentInfo } from './pdf/report-canvas.js';
import { drawFindings } from './findings-section.js';
import { drawKeywordTable, drawLandingReadiness } from './landing-section.js';
import type { LandingSignals } from './landing-signals.js';
import { drawNotMeasured } from './not-measured-section.js';
import { DEFAULT_BRAND, DIMENSION_LABEL } from './report-labels.js';
import { ReportLayout, STYLE } from './report-layout.js';
import type { GrowthRequest } from './report-schema.js';
import { drawSummary } from './summary-section.js';

export interface ReportInput {
  /** A recorded assessment: the report names its scanId and shows its figures as they are. */
  readonly assessment: Assessment;
  readonly request: GrowthRequest;
  /** Read from the snapshot the assessment judged (landingSignals); without them those sections say "not measured". */
  readonly signals?: LandingSignals;
}

const PAID_MEDIA = 'Auditoria de mídia paga';
const GROWTH = 'Diagnóstico de crescimento';

/** The paid-media audit (docs/scanner.md, "Reports"): is this landing page ready for ad traffic? A4 PDF. */
export function renderPaidMediaReport(input: ReportInput): Buffer {
  const { assessment, request, signals } = input;
  const brand = brandOf(request);
  const layout = new ReportLayout(documentInfo(PAID_MEDIA, brand, assessment));
  drawCover(layout, {
    brand,
    title: PAID_MEDIA,
    subtitle: 'Prontidão da página de destino para campanhas: velocidade, celular, HTTPS, tags de medição, formulários, chamadas para ação e termos dos anúncios.',
    url: assessment.url,
    timestamp: assessment.timestamp,
    scanId: assessment.scanId,
  });
  drawSummary(layout, assessment);
  layout.newPage();
  drawLandingReadiness(layout, signals);
  drawKeywordTable(layout, 'Termos dos anúncios na página', signals?.keywords ?? []);
  drawFindings(layout, assessment.findings);
  layout.footers(brand, PAID_MEDIA, assessment.scanId);
  return layout.doc.toBuffer();
}

/** The growth diagnostic: SEO, AI discovery and media in one, and what was not measured. A4 PDF. */
export function renderGrowthReport(input: ReportInput): Buffer {
  const { assessment, request, signals } = input;
  const brand = brandOf(request);
  const layout = new ReportLayout(documentInfo(GROWTH, brand, assessment));
  drawCover(layout, {
    brand,
    title: GROWTH,
    subtitle: 'Mídia, SEO e descoberta por IA num só diagnóstico, com o que ainda pede dados de plataformas de anúncios, de busca ou de SERP.',
    url: assessment.url,
    timestamp: assessment.timestamp,
    scanId: assessment.scanId,
  });
  drawSummary(layout, assessment);
  layout.newPage();
  layout.heading('SEO, descoberta por IA e mídia', STYLE.h1);
  const focus: (typeof DIMENSIONS)[number][] = ['seo', 'aiDiscovery', 'performance'];
  for (const d of focus) {
    const { score, measured } = assessment.dimensions[d];
    layout.row(DIMENSION_LABEL[d], measured ? `${String(score)}/100` : 'não medido');
  }
  const keyword = request.keyword?.trim();
  const terms = signals?.keywords ?? [];
  if (keyword !== undefined && keyword !== '') drawKeywordTable(layout, 'Termo de SEO na página', terms.filter((k) => k.term === keyword));
  drawLandingReadiness(layout, signals);
  const adTerms = new Set((request.keywords ?? []).map((t) => t.trim()));
  if (adTerms.size > 0) drawKeywordTable(layout, 'Termos dos anúncios na página', terms.filter((k) => adTerms.has(k.term)));
  drawNotMeasured(layout, keyword);
  drawFindings(layout, assessment.findings);
  layout.footers(brand, GROWTH, assessment.scanId);
  return layout.doc.toBuffer();
}

/** The PDF's document information; its dates are the assessment's, so one assessment renders to the same bytes. */
function documentInfo(reportName: string, brand: string, assessment: Assessment): DocumentInfo {
  const at = new Date(assessment.timestamp);
  return { title: `${reportName} · ${assessment.url}`, author: brand, subject: `scanId ${assessment.scanId}`, created: Number.isNaN(at.getTime()) ? new Date(0) : at };
}

/** The agency's name (white label), or ours. */
function brandOf(request: GrowthRequest): string {
  const agency = request.agency?.trim();
  return agency === undefined || agency === '' ? DEFAULT_BRAND : agency;
}

/** Terms whose presence the reports show, in request order: the SEO keyword first, then the ad terms (no repeats). */
export function reportTerms(request: GrowthRequest): string[] {
  const terms = [request.keyword, ...(request.keywords ?? [])].map((t) => t?.trim()).filter((t): t is string => t !== undefined && t !== '');
  return [...new Set(terms)];
}
