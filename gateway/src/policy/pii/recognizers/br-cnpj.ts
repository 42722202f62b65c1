import type { Recognizer } from '../recognizer.js';
import { boundaryBefore, isAsciiAlnumCode, numericBoundaryAfter, skipAlnum } from '../text-boundaries.js';

const W1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const W2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

/**
 * CNPJ check digits, mod 11. Each character counts as its code minus 48, which is the digit for digits and covers
 * the alphanumeric CNPJ the Receita Federal issues from July 2026 (IN RFB 2.229/2024).
 */
export function cnpjValid(c: string): boolean {
  if (c.length !== 14 || /^(.)\1{13}$/.test(c)) return false;
  for (const w of [W1, W2]) {
    let sum = 0;
    for (let i = 0; i < w.length; i++) sum += (c.charCodeAt(i) - 48) * (w[i] as number);
    const r = sum % 11;
    const dv = r < 2 ? 0 : 11 - r;
    if (dv !== c.charCodeAt(w.length) - 48) return false;
  }
  return true;
}

export const brCnpj: Recognizer = {
  entity: 'BR_CNPJ',
  id: 'br-cnpj',
  // `12.345.678/0001-95`, `12345678000195`, `12.ABC.345/01DE-35`.
  pattern: '[0-9A-Z]{2}\\.?[0-9A-Z]{3}\\.?[0-9A-Z]{3}/?[0-9A-Z]{4}-?\\d{2}',
  validate(text, start, end) {
    if (!boundaryBefore(text, start) || !numericBoundaryAfter(text, end)) return -1;
    if (text[start - 1] === '.' || text[start - 1] === '/') return -1;
    let compact = '';
    let punct = '';
    for (let i = start; i < end; i++) {
      if (isAsciiAlnumCode(text.charCodeAt(i))) compact += text[i];
      else punct += text[i];
    }
    // Either fully formatted, or bare, or bare root with `/0001-95`.
    if (punct !== '' && punct !== '../-' && punct !== '/-') return -1;
    // A bare alphanumeric candidate must look like an identifier with digits, not an upper-case word run.
    if (!/^\d{2}/.test(compact) && punct === '') return -1;
    return cnpjValid(compact) ? end : -1;
  },
  resumeAfterReject: (text, start) => skipAlnum(text, start),
};
