import { HELVETICA_BOLD_WIDTHS, HELVETICA_WIDTHS } from './helvetica-widths.js';

export type FontName = 'regular' | 'bold';

/** Unicode code points of WinAnsi codes 128-159 (the rest of 160-255 is Latin-1 itself). */
const HIGH: Readonly<Record<number, number>> = {
  0x20ac: 128, 0x201a: 130, 0x0192: 131, 0x201e: 132, 0x2026: 133, 0x2020: 134, 0x2021: 135, 0x02c6: 136, 0x2030: 137,
  0x0160: 138, 0x2039: 139, 0x0152: 140, 0x017d: 142, 0x2018: 145, 0x2019: 146, 0x201c: 147, 0x201d: 148, 0x2022: 149,
  0x2013: 150, 0x2014: 151, 0x02dc: 152, 0x2122: 153, 0x0161: 154, 0x203a: 155, 0x0153: 156, 0x017e: 158, 0x0178: 159,
};
const QUESTION = 0x3f;

/** One WinAnsi byte for a character; '?' for what the encoding lacks (CJK, emoji…), control characters as spaces. */
function winAnsiCode(codePoint: number): number {
  if (codePoint >= 32 && codePoint <= 126) return codePoint;
  if (codePoint >= 160 && codePoint <= 255) return codePoint;
  if (codePoint === 9 || codePoint === 10 || codePoint === 13) return 32;
  return HIGH[codePoint] ?? QUESTION;
}

const COMBINING = /[\u0300-\u036f]/;

/** Composed, so a decomposed "é" (e + combining acute) is one WinAnsi character and keeps its accent. */
function composed(text: string): string {
  return COMBINING.test(text) ? text.normalize('NFC') : text;
}

/** The string as WinAnsi bytes. */
export function toWinAnsi(text: string): Buffer {
  const bytes: number[] = [];
  for (const ch of composed(text)) bytes.push(winAnsiCode(ch.codePointAt(0) ?? QUESTION));
  return Buffer.from(bytes);
}

/** Width of one character in 1/1000 em. */
function charUnits(ch: string, font: FontName): number {
  const widths = font === 'bold' ? HELVETICA_BOLD_WIDTHS : HELVETICA_WIDTHS;
  return widths[winAnsiCode(ch.codePointAt(0) ?? QUESTION) - 32] ?? 556;
}

/** Width in points of `text` set in `font` at `size`. */
export function textWidth(text: string, font: FontName, size: number): number {
  let units = 0;
  for (const ch of composed(text)) units += charUnits(ch, font);
  return (units * size) / 1000;
}

/**
 * How many UTF-16 units of `text` (from its start, whole characters) fit `width`; at least one character, so a line
 * breaker always progresses. Reads only as far as the width reaches, however long the text.
 */
export function prefixThatFits(text: string, width: number, font: FontName, size: number): number {
  const limit = (width * 1000) / size;
  let units = 0;
  let length = 0;
  for (const ch of text) {
    units += charUnits(ch, font);
    if (units > limit) break;
    length += ch.length;
  }
  return Math.max(length, text.length === 0 ? 0 : (text.codePointAt(0) ?? 0) > 0xffff ? 2 : 1);
}
