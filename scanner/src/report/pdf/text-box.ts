import type { Colour, PdfWriter } from './pdf-writer.js';
import { prefixThatFits, textWidth, type FontName } from './win-ansi.js';

export interface TextStyle {
  readonly font: FontName;
  readonly size: number;
  readonly colour: Colour;
  /** Line height as a multiple of the size. */
  readonly leading?: number;
}

const ELLIPSIS = '…';
const DEFAULT_LEADING = 1.25;

export function lineHeight(style: TextStyle): number {
  return style.size * (style.leading ?? DEFAULT_LEADING);
}

/**
 * Breaks text into lines no wider than `width`: at spaces, and inside a word too long for a line (a long URL breaks
 * wherever it must). Newlines in the text start new lines. Stops once `limit` lines are made: a box never needs more
 * than its budget plus one (to know the text was cut), however long the text is.
 */
export function wrapLines(text: string, width: number, style: TextStyle, limit = Infinity): string[] {
  const lines: string[] = [];
  const space = textWidth(' ', style.font, style.size);
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    let lineWidth = 0;
    for (const word of paragraph.split(/\s+/)) {
      if (word === '') continue;
      if (lines.length >= limit) return lines;
      const wordWidth = textWidth(word, style.font, style.size);
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
        const cut = prefixThatFits(rest, width, style.font, style.size);
        lines.push(rest.slice(0, cut));
        rest = rest.slice(cut);
        restWidth = textWidth(rest, style.font, style.size);
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
export function fitLines(text: string, width: number, maxLines: number, style: TextStyle): string[] {
  const lines = wrapLines(text, width, style, maxLines + 1);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, Math.max(1, maxLines));
  const last = kept.length - 1;
  kept[last] = withEllipsis(kept[last] ?? '', width, style);
  return kept;
}

/** The height `fitLines` would use. */
export function heightOfString(text: string, width: number, maxLines: number, style: TextStyle): number {
  return fitLines(text, width, maxLines, style).length * lineHeight(style);
}

/** Draws fitted text from (x, y) and answers the height used. */
export function drawText(doc: PdfWriter, text: string, x: number, y: number, width: number, maxLines: number, style: TextStyle): number {
  const lines = fitLines(text, width, maxLines, style);
  const step = lineHeight(style);
  lines.forEach((line, i) => doc.text(line, x, y + i * step, style.font, style.size, style.colour));
  return lines.length * step;
}

function withEllipsis(line: string, width: number, style: TextStyle): string {
  let kept = line.trimEnd();
  while (kept !== '' && textWidth(`${kept}${ELLIPSIS}`, style.font, style.size) > width) kept = kept.slice(0, -1).trimEnd();
  return `${kept}${ELLIPSIS}`;
}
