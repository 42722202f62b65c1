import type { Recognizer } from '../recognizer.js';
import { digitsOf, numericBoundaryAfter, numericBoundaryBefore, skipDigits } from '../text-boundaries.js';

/** Receita Federal's two mod-11 check digits; all-same-digit numbers pass the arithmetic but are invalid. */
export function cpfValid(d: string): boolean {
  if (d.length !== 11 || /^(\d)\1{10}$/.test(d)) return false;
  for (const len of [9, 10]) {
    let sum = 0;
    for (let i = 0; i < len; i++) sum += (d.charCodeAt(i) - 48) * (len + 1 - i);
    const dv = ((sum * 10) % 11) % 10;
    if (dv !== d.charCodeAt(len) - 48) return false;
  }
  return true;
}

export const brCpf: Recognizer = {
  entity: 'BR_CPF',
  id: 'br-cpf',
  // `123.456.789-09`, `12345678909`, `123456789-09`.
  pattern: '\\d{3}\\.?\\d{3}\\.?\\d{3}-?\\d{2}',
  validate(text, start, end) {
    if (!numericBoundaryBefore(text, start) || !numericBoundaryAfter(text, end)) return -1;
    // Dots come in pairs or not at all (`123.456789-09` is a typo'd something else).
    let dots = 0;
    for (let i = start; i < end; i++) if (text[i] === '.') dots++;
    if (dots === 1) return -1;
    return cpfValid(digitsOf(text, start, end)) ? end : -1;
  },
  resumeAfterReject: (text, start) => skipDigits(text, start),
};
