import PDFDocument from 'pdfkit';
import { winAnsiText } from './win-ansi-text.js';

/** A colour as #rrggbb. */
export type Colour = `#${string}`;
export type FontName = 'regular' | 'bold';

export interface DocumentInfo {
  readonly title: string;
  readonly author: string;
  readonly subject: string;
  /** The assessment's time: the PDF's dates and its file id derive from it, so one assessment gives the same bytes. */
  readonly created: Date;
}

/** A4 in points, as pdfkit sizes it. */
export const PAGE = Object.freeze({ width: 595.28, height: 841.89 });

const CACHED_CHARS = 48;
// pdfkit's standard fonts: no font file is embedded, and WinAnsi covers Portuguese.
const FONT: Readonly<Record<FontName, string>> = { regular: 'Helvetica', bold: 'Helvetica-Bold' };

/**
 * The reports' drawing surface over a pdfkit document: A4 pages without margins (the layout places everything
 * itself), pages kept in memory (`bufferPages`) so the footers with "page n of N" are drawn last, vector shapes and
 * single text lines at a top-left position. Fitting text to boxes is text-fit.ts, measured with pdfkit's metrics.
 */
export class ReportCanvas {
  readonly #doc: PDFKit.PDFDocument;
  #pages = 0;
  // Widths of the short strings (words) measured so far: a report measures the same words many times over.
  readonly #widths = new Map<string, Map<string, number>>();

  constructor(info: DocumentInfo) {
    this.#doc = new PDFDocument({
      size: 'A4',
      margin: 0,
      autoFirstPage: false,
      bufferPages: true,
      compress: true,
      pdfVersion: '1.4',
      info: { Title: info.title.slice(0, 500), Author: info.author, Subject: info.subject, Producer: 'aduana scanner', Creator: 'aduana scanner', CreationDate: info.created, ModDate: info.created },
    });
  }

  get pageCount(): number {
    return this.#pages;
  }

  addPage(): void {
    this.#doc.addPage({ size: 'A4', margin: 0 });
    this.#pages++;
  }

  /** Draws on an earlier page (footers with the page total are written last). */
  switchToPage(index: number): void {
    if (index < 0 || index >= this.#pages) throw new RangeError(`no page ${String(index)}`);
    this.#doc.switchToPage(index);
  }

  /** Width in points of `text` set in `font` at `size`. */
  widthOf(text: string, font: FontName, size: number): number {
    return this.measurer(font, size)(text);
  }

  /** A width function for one font and size; short strings (words, characters) are measured once per document. */
  measurer(font: FontName, size: number): (text: string) => number {
    const styleKey = `${font} ${String(size)}`;
    let widths = this.#widths.get(styleKey);
    if (widths === undefined) {
      widths = new Map();
      this.#widths.set(styleKey, widths);
    }
    const cache = widths;
    return (text) => {
      let width = cache.get(text);
      if (width === undefined) {
        width = this.#doc.font(FONT[font]).fontSize(size).widthOfString(winAnsiText(text));
        if (text.length <= CACHED_CHARS) cache.set(text, width);
      }
      return width;
    };
  }

  /** One line of text; `y` is the top of the line (pdfkit puts the baseline one ascender below it). */
  text(text: string, x: number, y: number, font: FontName, size: number, colour: Colour): void {
    this.#doc.font(FONT[font]).fontSize(size).fillColor(colour).text(winAnsiText(text), x, y, { lineBreak: false });
  }

  fillRect(x: number, y: number, width: number, height: number, colour: Colour): void {
    this.#doc.rect(x, y, width, height).fill(colour);
  }

  strokeRect(x: number, y: number, width: number, height: number, colour: Colour, lineWidth = 0.75): void {
    this.#doc.lineWidth(lineWidth).rect(x, y, width, height).stroke(colour);
  }

  line(x1: number, y1: number, x2: number, y2: number, colour: Colour, lineWidth = 0.75): void {
    this.#doc.lineWidth(lineWidth).moveTo(x1, y1).lineTo(x2, y2).stroke(colour);
  }

  /**
   * A circular arc stroked with round caps, from `fromDeg` to `toDeg` (0° = 3 o'clock, counter-clockwise as on paper),
   * as cubic Béziers of at most 90° each.
   */
  arc(cx: number, cy: number, radius: number, fromDeg: number, toDeg: number, colour: Colour, lineWidth: number): void {
    const segments = Math.max(1, Math.ceil(Math.abs(toDeg - fromDeg) / 90));
    const step = ((toDeg - fromDeg) / segments) * (Math.PI / 180);
    const k = (4 / 3) * Math.tan(step / 4);
    // Page coordinates run y downwards: a point at paper angle a is (cx + r cos a, cy - r sin a).
    const point = (a: number): [number, number] => [cx + radius * Math.cos(a), cy - radius * Math.sin(a)];
    let angle = fromDeg * (Math.PI / 180);
    const doc = this.#doc.save().lineWidth(lineWidth).lineCap('round');
    doc.moveTo(...point(angle));
    for (let i = 0; i < segments; i++) {
      const next = angle + step;
      const [x0, y0] = point(angle);
      const [x3, y3] = point(next);
      // Control points along the tangents, the paper tangent (-sin a, cos a) with y flipped.
      doc.bezierCurveTo(x0 - k * radius * Math.sin(angle), y0 - k * radius * Math.cos(angle), x3 + k * radius * Math.sin(next), y3 + k * radius * Math.cos(next), x3, y3);
      angle = next;
    }
    doc.stroke(colour).restore();
  }

  /** Ends the document and answers its bytes. pdfkit writes synchronously into its stream's buffer, read back here. */
  toBuffer(): Buffer {
    this.#doc.flushPages();
    this.#doc.end();
    const chunks: Buffer[] = [];
    for (let chunk = this.#doc.read() as Buffer | null; chunk !== null; chunk = this.#doc.read() as Buffer | null) chunks.push(chunk);
    return Buffer.concat(chunks);
  }
}
