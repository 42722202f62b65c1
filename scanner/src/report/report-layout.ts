import { PAGE, ReportCanvas, type DocumentInfo } from './pdf/report-canvas.js';
import { drawText, heightOfString, lineHeight, type TextStyle } from './pdf/text-fit.js';
import { BRAND, INK, MUTED, RULE } from './report-labels.js';

export const MARGIN = 48;
export const CONTENT_WIDTH = PAGE.width - 2 * MARGIN;
const FOOTER_TOP = PAGE.height - 36;
/** Lowest y content may reach: the footer lives below it. */
export const CONTENT_BOTTOM = FOOTER_TOP - 14;

export const STYLE = {
  h1: { font: 'bold', size: 20, colour: BRAND },
  h2: { font: 'bold', size: 14, colour: BRAND },
  h3: { font: 'bold', size: 11, colour: INK },
  body: { font: 'regular', size: 9.5, colour: INK },
  small: { font: 'regular', size: 8.5, colour: MUTED },
  label: { font: 'bold', size: 9, colour: INK },
} as const satisfies Record<string, TextStyle>;

/**
 * A cursor over the pages of one report: content flows down the page, and a block that would cross the footer
 * starts a new page instead. Every piece of text goes through text-fit.ts, so no text is wider than its box and
 * none runs past its line budget.
 */
export class ReportLayout {
  readonly doc: ReportCanvas;
  y = MARGIN;

  constructor(info: DocumentInfo) {
    this.doc = new ReportCanvas(info);
  }

  newPage(): void {
    this.doc.addPage();
    this.y = MARGIN;
  }

  /** Starts a new page unless `height` more points fit on this one. */
  ensure(height: number): void {
    if (this.doc.pageCount === 0 || this.y + height > CONTENT_BOTTOM) this.newPage();
  }

  /** A block of fitted text at the cursor, then the cursor moves below it. */
  paragraph(text: string, style: TextStyle, maxLines = 6, x = MARGIN, width = CONTENT_WIDTH, after = 4): void {
    const height = heightOfString(this.doc, text, width, maxLines, style);
    this.ensure(height);
    drawText(this.doc, text, x, this.y, width, maxLines, style);
    this.y += height + after;
  }

  heading(text: string, style: TextStyle = STYLE.h2, keepWith = 60): void {
    this.ensure(lineHeight(style) * 2 + keepWith);
    this.y += 6;
    this.y += drawText(this.doc, text, MARGIN, this.y, CONTENT_WIDTH, 2, style);
    this.doc.line(MARGIN, this.y + 2, MARGIN + CONTENT_WIDTH, this.y + 2, RULE);
    this.y += 10;
  }

  /** Label and value on one row: the label column and the value column each fit their own width. */
  row(label: string, value: string, labelWidth = 190, maxLines = 2): void {
    const valueWidth = CONTENT_WIDTH - labelWidth - 10;
    const height = Math.max(heightOfString(this.doc, label, labelWidth, maxLines, STYLE.label), heightOfString(this.doc, value, valueWidth, maxLines, STYLE.body));
    this.ensure(height + 4);
    drawText(this.doc, label, MARGIN, this.y, labelWidth, maxLines, STYLE.label);
    drawText(this.doc, value, MARGIN + labelWidth + 10, this.y, valueWidth, maxLines, STYLE.body);
    this.y += height + 4;
  }

  /** Footers on every page, once the page count is known: brand, report name, scanId, page n of N. */
  footers(brand: string, reportName: string, scanId: string): void {
    const total = this.doc.pageCount;
    for (let i = 0; i < total; i++) {
      this.doc.switchToPage(i);
      this.doc.line(MARGIN, FOOTER_TOP - 4, MARGIN + CONTENT_WIDTH, FOOTER_TOP - 4, RULE);
      const right = `Página ${String(i + 1)} de ${String(total)}`;
      drawText(this.doc, `${brand} · ${reportName}`, MARGIN, FOOTER_TOP, CONTENT_WIDTH - 90, 1, STYLE.small);
      drawText(this.doc, right, MARGIN + CONTENT_WIDTH - 80, FOOTER_TOP, 80, 1, STYLE.small);
      drawText(this.doc, `scanId ${scanId}`, MARGIN, FOOTER_TOP + 11, CONTENT_WIDTH, 1, STYLE.small);
    }
  }
}
