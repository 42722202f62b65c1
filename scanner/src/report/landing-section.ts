import type { KeywordReport } from '../seo/keyword.js';
import type { LandingSignals } from './landing-signals.js';
import { drawText } from './pdf/text-fit.js';
import { INK, MUTED, RULE, yesNo } from './report-labels.js';
import { CONTENT_BOTTOM, CONTENT_WIDTH, MARGIN, STYLE, type ReportLayout } from './report-layout.js';

/** Landing-page readiness for ads: transport and speed, tags, forms and calls to action (paid-media report). */
export function drawLandingReadiness(layout: ReportLayout, signals: LandingSignals | undefined): void {
  layout.heading('Prontidão da página para anúncios');
  if (signals === undefined || !signals.readable) {
    layout.paragraph('A página não pôde ser lida como HTML nesta análise: tags, formulários e chamadas para ação não foram medidos.', STYLE.body);
    if (signals === undefined) return;
  }
  layout.row('HTTPS', yesNo(signals.https));
  layout.row('Viewport para celular', yesNo(signals.mobileViewport));
  layout.row('Tempo até o primeiro byte', signals.ttfbMs === null ? 'não medido' : `${String(Math.round(signals.ttfbMs))} ms`);
  layout.row('Peso do HTML transferido', `${(signals.htmlBytes / 1024).toFixed(1)} KB`);
  layout.row('Formulários', String(signals.forms));
  const ctas = signals.callsToAction.length === 0 ? 'nenhuma encontrada' : `${String(signals.callsToActionCount)}: ${signals.callsToAction.map((c) => `“${c}”`).join(', ')}`;
  layout.row('Chamadas para ação', ctas, 190, 3);
  layout.heading('Tags de mídia e medição', STYLE.h3, 100);
  for (const { tag, found } of signals.tags) layout.row(tag, found ? 'Encontrada' : 'Não encontrada');
}

const COLUMNS = ['Título', 'H1', 'Descrição', 'URL', 'Texto'] as const;

/** Where each keyword appears: one row per term, a column per place. */
export function drawKeywordTable(layout: ReportLayout, title: string, reports: readonly KeywordReport[]): void {
  layout.heading(title, STYLE.h2, 60);
  if (reports.length === 0) {
    layout.paragraph('Nenhum termo foi informado para esta análise.', STYLE.body);
    return;
  }
  const termWidth = 190;
  const columnWidth = (CONTENT_WIDTH - termWidth) / COLUMNS.length;
  const header = (): void => {
    layout.ensure(40);
    drawText(layout.doc, 'Termo', MARGIN, layout.y, termWidth - 6, 1, STYLE.label);
    COLUMNS.forEach((c, i) => drawText(layout.doc, c, MARGIN + termWidth + i * columnWidth, layout.y, columnWidth - 4, 1, STYLE.label));
    layout.y += 14;
    layout.doc.line(MARGIN, layout.y - 2, MARGIN + CONTENT_WIDTH, layout.y - 2, RULE);
  };
  header();
  for (const r of reports) {
    if (layout.y + 14 > CONTENT_BOTTOM) {
      layout.newPage();
      header();
    }
    drawText(layout.doc, r.term, MARGIN, layout.y, termWidth - 6, 1, STYLE.body);
    const cells = [r.inTitle, r.inH1, r.inMetaDescription, r.inUrl].map(yesNo);
    cells.push(r.inBody ? `${String(r.bodyOccurrences)}×` : 'Não');
    cells.forEach((cell, i) =>
      drawText(layout.doc, cell, MARGIN + termWidth + i * columnWidth, layout.y, columnWidth - 4, 1, { font: 'regular', size: 9.5, colour: cell === 'Não' ? MUTED : INK }),
    );
    layout.y += 14;
  }
  layout.y += 6;
}
