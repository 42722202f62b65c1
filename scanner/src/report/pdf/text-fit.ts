import type { Colour, FontName, ReportCanvas } from './report-canvas.js';

export interface TextStyle {
  readonly font: FontName;
  readonly size: number;
  readonly colour: Colour;
  /** Line height as a multiple of the size. */
  readonly leading?: number;
}

const ELLIPSIS = '…';
// Strings up to this length are measured whole.
const SHORT = 64;
const DEFAULT_LEADING = 1.25;

export function lineHeight(style: TextStyle): number {
  return style.size * (style.leading ?? DEFAULT_LEADING);
}

/**
 * Breaks text into lines no wider than `width`, measured with pdfkit's font metrics: at spaces, and inside a word too
 * long for a line (a long URL breaks wherever it must). Newlines in the text start new lines. Stops once `limit`
 * lines are made: a box never needs more than its budget plus one (to know the text was cut), however long the text.
 */
export function wrapLines(canvas: ReportCanvas, text: string, width: number, style: TextStyle, limit = Infinity): string[] {
  const exact = canvas.measurer(style.font, style.size);
  const advance = exact;
  // A long word is measured only as far as needed: once a prefix is wider than the line, so is the word (widths grow
  // with each character), so a 3,000-character URL costs a line or two of measuring, not all of it for every line.
  const measure = (s: string): number => {
    if (s.length <= SHORT) return exact(s);
    const prefix = exact(s.slice(0, prefixOver(s, 2 * width, advance)));
    return prefix > width ? prefix : exact(s);
  };
  const lines: string[] = [];
  const space = measure(' ');
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    let lineWidth = 0;
    for (const word of paragraph.split(/\s+/)) {
      if (word === '') continue;
      if (lines.length >= limit) return lines;
      const wordWidth = measure(word);
      const candidateWidth = line === '' ? wordWidth : lineWidth + space + wordWidth;
      if (candidateWidth <= width) {
        line = line === '' ? word : `${line} ${word}`;
        lineWidth = candidateWidth;
        continue;
      }
      if (line !== '') lines.push(line);
      let rest = word;
      let restWidth = wordWidth;
      while (restWidth > width && lines.length < limit) {
        const cut = prefixThatFits(rest, width, advance, exact);
        lines.push(rest.slice(0, cut));
        rest = rest.slice(cut);
        restWidth = measure(rest);
      }
      line = rest;
      lineWidth = restWidth;
    }
    if (lines.length >= limit) return lines;
    lines.push(line);
  }
  return lines;
}

/**
 * The lines of `text` that fit `maxLines` lines of `width`: when it does not fit, the last line kept ends with "…"
 * and is still no wider than `width`. So a box sized for `maxLines` never overflows, whatever the text.
 */
export function fitLines(canvas: ReportCanvas, text: string, width: number, maxLines: number, style: TextStyle): string[] {
  const lines = wrapLines(canvas, text, width, style, maxLines + 1);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, Math.max(1, maxLines));
  const last = kept.length - 1;
  kept[last] = withEllipsis(canvas, kept[last] ?? '', width, style);
  return kept;
}

/** The height `drawText` would use. */
export function heightOfString(canvas: ReportCanvas, text: string, width: number, maxLines: number, style: TextStyle): number {
  return fitLines(canvas, text, width, maxLines, style).length * lineHeight(style);
}

/** Draws fitted text from (x, y) and answers the height used. */
export function drawText(canvas: ReportCanvas, text: string, x: number, y: number, width: number, maxLines: number, style: TextStyle): number {
  const lines = fitLines(canvas, text, width, maxLines, style);
  const step = lineHeight(style);
  lines.forEach((line, i) => canvas.text(line, x, y + i * step, style.font, style.size, style.colour));
  return lines.length * step;
}

/** UTF-16 length of the shortest prefix of `text` whose summed character advances exceed `width` (or all of it). */
function prefixOver(text: string, width: number, advance: (ch: string) => number): number {
  let sum = 0;
  let length = 0;
  for (const ch of text) {
    length += ch.length;
    sum += advance(ch);
    if (sum > width) break;
  }
  return length;
}

/**
 * How many UTF-16 units of `text` (whole characters) fit `width`: the characters' advances summed until the line is
 * full, then checked with the exact, kerned width and shortened while it is wider (a few kerning pairs widen). At
 * least one character, so a line breaker always progresses.
 */
function prefixThatFits(text: string, width: number, advance: (ch: string) => number, exact: (s: string) => number): number {
  const chars: string[] = [];
  let sum = 0;
  for (const ch of text) {
    sum += advance(ch);
    if (sum > width && chars.length > 0) break;
    chars.push(ch);
  }
  while (chars.length > 1 && exact(chars.join('')) > width) chars.pop();
  return chars.join('').length;
}

function withEllipsis(canvas: ReportCanvas, line: string, width: number, style: TextStyle): string {
  let kept = line.trimEnd();
  while (kept !== '' && canvas.widthOf(`${kept}${ELLIPSIS}`, style.font, style.size) > width) kept = kept.slice(0, -1).trimEnd();
  return `${kept}${ELLIPSIS}`;
}
