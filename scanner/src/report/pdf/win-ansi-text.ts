/**
 * Text for pdfkit's standard fonts, which are set in WinAnsi: Portuguese (accents, ç, “”, …, ·, ×) is all there, but a
 * character outside it (CJK, emoji, from a page's own title) would be written as a wrong byte sequence. Those become
 * "?", control characters become spaces, and decomposed accents are composed first so "é" keeps its accent.
 */
const UNENCODABLE = /[^\u0020-\u007e\u00a0-\u00ff\u20ac\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u017d\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u017e\u0178\t\n\r]/gu;
const CONTROL = /[\t\n\r]/g;
const COMBINING = /[\u0300-\u036f]/;

export function winAnsiText(text: string): string {
  const composed = COMBINING.test(text) ? text.normalize('NFC') : text;
  return composed.replace(UNENCODABLE, '?').replace(CONTROL, ' ');
}
