import { PAGE } from './pdf/report-canvas.js';
import { drawText } from './pdf/text-fit.js';
import { BRAND, longDate, MUTED } from './report-labels.js';
import { CONTENT_WIDTH, MARGIN, type ReportLayout } from './report-layout.js';

export interface CoverText {
  readonly brand: string;
  readonly title: string;
  readonly subtitle: string;
  readonly url: string;
  readonly timestamp: string;
  readonly scanId: string;
}

/** The cover: the agency's name on a band (white label), the report's name, the site, the date and the scanId. */
export function drawCover(layout: ReportLayout, cover: CoverText): void {
  layout.newPage();
  const doc = layout.doc;
  doc.fillRect(0, 0, PAGE.width, 250, BRAND);
  drawText(doc, cover.brand, MARGIN, 90, CONTENT_WIDTH, 3, { font: 'bold', size: 28, colour: '#ffffff', leading: 1.15 });
  drawText(doc, 'Relatório preparado por esta equipe', MARGIN, 210, CONTENT_WIDTH, 1, { font: 'regular', size: 10, colour: '#d6eaf8' });
  let y = 300;
  y += drawText(doc, cover.title, MARGIN, y, CONTENT_WIDTH, 2, { font: 'bold', size: 24, colour: BRAND, leading: 1.2 });
  y += 6;
  y += drawText(doc, cover.subtitle, MARGIN, y, CONTENT_WIDTH, 3, { font: 'regular', size: 12, colour: MUTED });
  y += 30;
  y += drawText(doc, 'Site analisado', MARGIN, y, CONTENT_WIDTH, 1, { font: 'bold', size: 10, colour: MUTED });
  y += drawText(doc, cover.url, MARGIN, y, CONTENT_WIDTH, 3, { font: 'bold', size: 13, colour: '#1b2631' });
  y += 18;
  y += drawText(doc, `Data da análise: ${longDate(cover.timestamp)}`, MARGIN, y, CONTENT_WIDTH, 1, { font: 'regular', size: 10, colour: '#1b2631' });
  drawText(doc, `Identificador da análise (scanId): ${cover.scanId}`, MARGIN, y + 4, CONTENT_WIDTH, 2, { font: 'regular', size: 9, colour: MUTED });
}
