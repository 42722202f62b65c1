import { deflateSync } from 'node:zlib';
import { toWinAnsi, type FontName } from './win-ansi.js';

/** A colour as #rrggbb. */
export type Colour = `#${string}`;

export interface DocumentInfo {
  readonly title: string;
  readonly author: string;
  readonly subject: string;
}

/** A4 in points. */
export const PAGE = Object.freeze({ width: 595.28, height: 841.89 });

const FONT_RESOURCE: Readonly<Record<FontName, string>> = { regular: 'F1', bold: 'F2' };
// Helvetica's ascender (718/1000): the baseline sits this far below the top of a line.
const ASCENT = 0.718;

/**
 * A small PDF 1.4 writer for the reports: A4 pages, the two standard Helvetica fonts in WinAnsi encoding (no font
 * embedded), filled and stroked vector paths, text lines. Coordinates are from the top-left corner, y downwards, as
 * in pdfkit; content streams are deflated. It draws exactly what it is told: wrapping and fitting are text-box.ts.
 */
export class PdfWriter {
  readonly #pages: string[][] = [];
  #current = -1;

  get pageCount(): number {
    return this.#pages.length;
  }

  addPage(): void {
    this.#pages.push([]);
    this.#current = this.#pages.length - 1;
  }

  /** Draws on an earlier page (footers with the page total are written last). */
  switchToPage(index: number): void {
    if (index < 0 || index >= this.#pages.length) throw new RangeError(`no page ${String(index)}`);
    this.#current = index;
  }

  /** One line of text; `y` is the top of the line. */
  text(text: string, x: number, y: number, font: FontName, size: number, colour: Colour): void {
    const hex = toWinAnsi(text).toString('hex');
    this.#op(`BT ${rgb(colour)} rg /${FONT_RESOURCE[font]} ${num(size)} Tf ${num(x)} ${num(PAGE.height - y - size * ASCENT)} Td <${hex}> Tj ET`);
  }

  fillRect(x: number, y: number, width: number, height: number, colour: Colour): void {
    this.#op(`${rgb(colour)} rg ${num(x)} ${num(PAGE.height - y - height)} ${num(width)} ${num(height)} re f`);
  }

  strokeRect(x: number, y: number, width: number, height: number, colour: Colour, lineWidth = 0.75): void {
    this.#op(`${rgb(colour)} RG ${num(lineWidth)} w ${num(x)} ${num(PAGE.height - y - height)} ${num(width)} ${num(height)} re S`);
  }

  line(x1: number, y1: number, x2: number, y2: number, colour: Colour, lineWidth = 0.75): void {
    this.#op(`${rgb(colour)} RG ${num(lineWidth)} w ${num(x1)} ${num(PAGE.height - y1)} m ${num(x2)} ${num(PAGE.height - y2)} l S`);
  }

  /**
   * A circular arc stroked with round caps, from `fromDeg` to `toDeg` (0° = 3 o'clock, counter-clockwise as on paper),
   * drawn as cubic Béziers of at most 90° each.
   */
  arc(cx: number, cy: number, radius: number, fromDeg: number, toDeg: number, colour: Colour, lineWidth: number): void {
    const segments = Math.max(1, Math.ceil(Math.abs(toDeg - fromDeg) / 90));
    const step = ((toDeg - fromDeg) / segments) * (Math.PI / 180);
    let angle = fromDeg * (Math.PI / 180);
    const point = (a: number): [number, number] => [cx + radius * Math.cos(a), PAGE.height - (cy - radius * Math.sin(a))];
    const [sx, sy] = point(angle);
    const ops = [`${rgb(colour)} RG ${num(lineWidth)} w 1 J ${num(sx)} ${num(sy)} m`];
    const k = (4 / 3) * Math.tan(step / 4);
    for (let i = 0; i < segments; i++) {
      const next = angle + step;
      const [x0, y0] = point(angle);
      const [x3, y3] = point(next);
      // Control points along the tangents (y is already flipped to PDF space, where counter-clockwise is positive).
      const c1x = x0 - k * radius * Math.sin(angle);
      const c1y = y0 + k * radius * Math.cos(angle);
      const c2x = x3 + k * radius * Math.sin(next);
      const c2y = y3 - k * radius * Math.cos(next);
      ops.push(`${num(c1x)} ${num(c1y)} ${num(c2x)} ${num(c2y)} ${num(x3)} ${num(y3)} c`);
      angle = next;
    }
    ops.push('S 0 J');
    this.#op(ops.join(' '));
  }

  toBuffer(info: DocumentInfo): Buffer {
    const objects: (string | Buffer)[] = [];
    const add = (body: string | Buffer): number => objects.push(body);
    const catalog = add('');
    const pagesRoot = add('');
    const regular = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
    const bold = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
    const kids: number[] = [];
    for (const ops of this.#pages) {
      const content = deflateSync(Buffer.from(ops.join('\n'), 'latin1'));
      const stream = add(Buffer.concat([Buffer.from(`<< /Length ${String(content.length)} /Filter /FlateDecode >>\nstream\n`, 'latin1'), content, Buffer.from('\nendstream', 'latin1')]));
      kids.push(
        add(
          `<< /Type /Page /Parent ${ref(pagesRoot)} /MediaBox [0 0 ${num(PAGE.width)} ${num(PAGE.height)}] ` +
            `/Resources << /Font << /F1 ${ref(regular)} /F2 ${ref(bold)} >> >> /Contents ${ref(stream)} >>`,
        ),
      );
    }
    objects[catalog - 1] = `<< /Type /Catalog /Pages ${ref(pagesRoot)} >>`;
    objects[pagesRoot - 1] = `<< /Type /Pages /Kids [${kids.map(ref).join(' ')}] /Count ${String(kids.length)} >>`;
    const infoId = add(
      `<< /Title ${utf16(info.title)} /Author ${utf16(info.author)} /Subject ${utf16(info.subject)} /Producer ${utf16('aduana scanner')} >>`,
    );
    const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
    let offset = chunks[0]?.length ?? 0;
    const offsets: number[] = [];
    objects.forEach((body, i) => {
      offsets.push(offset);
      const chunk = Buffer.concat([Buffer.from(`${String(i + 1)} 0 obj\n`, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'latin1') : body, Buffer.from('\nendobj\n', 'latin1')]);
      chunks.push(chunk);
      offset += chunk.length;
    });
    const xref = [`xref\n0 ${String(objects.length + 1)}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
    chunks.push(Buffer.from(`${xref}trailer\n<< /Size ${String(objects.length + 1)} /Root ${ref(catalog)} /Info ${ref(infoId)} >>\nstartxref\n${String(offset)}\n%%EOF\n`, 'latin1'));
    return Buffer.concat(chunks);
  }

  #op(op: string): void {
    const page = this.#pages[this.#current];
    if (page === undefined) throw new Error('addPage() before drawing');
    page.push(op);
  }
}

function ref(id: number): string {
  return `${String(id)} 0 R`;
}

function num(n: number): string {
  return (Math.round(n * 100) / 100).toString();
}

function rgb(colour: Colour): string {
  const v = Number.parseInt(colour.slice(1), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255].map((c) => num(c / 255)).join(' ');
}

/** A text string outside content streams (document info): UTF-16BE with a byte-order mark, as hex. */
function utf16(text: string): string {
  const units = Buffer.from(text.slice(0, 500), 'utf16le').swap16();
  return `<FEFF${units.toString('hex').toUpperCase()}>`;
}
