import type { Recognizer } from '../recognizer.js';
import { isDigitCode, numericBoundaryAfter, numericBoundaryBefore, skipDigits } from '../text-boundaries.js';

export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Issuer ranges (IIN/BIN) and the lengths each network issues; a Luhn-valid number outside them is no card. */
export function knownIssuer(d: string): boolean {
  const n = d.length;
  const p2 = Number(d.slice(0, 2));
  const p3 = Number(d.slice(0, 3));
  const p4 = Number(d.slice(0, 4));
  const p6 = Number(d.slice(0, 6));
  if (d[0] === '4') return n === 13 || n === 16 || n === 19; // Visa (Elo's 4xxxxx ranges are 16 long too)
  if (p2 >= 51 && p2 <= 55) return n === 16; // Mastercard
  if (p4 >= 2221 && p4 <= 2720) return n === 16; // Mastercard 2-series
  if (p4 >= 2200 && p4 <= 2204) return n >= 16 && n <= 19; // Mir
  if (p2 === 34 || p2 === 37) return n === 15; // American Express
  if (p2 === 36 || (p3 >= 300 && p3 <= 305) || p2 === 38 || p2 === 39) return n >= 14 && n <= 19; // Diners, Hipercard 38
  if (p4 >= 3528 && p4 <= 3589) return n >= 16 && n <= 19; // JCB
  if (p2 === 62) return n >= 16 && n <= 19; // UnionPay
  if (d.startsWith('6011') || p2 === 65 || (p3 >= 644 && p3 <= 649)) return n >= 16 && n <= 19; // Discover, Elo 65
  if (p6 >= 606282 && p6 <= 606282) return n === 16 || n === 19; // Hipercard
  // Maestro and Elo 50xxxx/636368; the 12-15 digit Maestro lengths are rare and collide with bare CNPJs.
  if (p2 === 50 || (p2 >= 56 && p2 <= 69)) return n >= 16 && n <= 19;
  return false;
}

const GROUP_BEFORE = /(?:^|[^A-Za-z0-9])(?=[A-Za-z]*\d)[A-Za-z0-9]{4}$/;

/** Printed groupings: 4-4-4-4(-3), Amex 4-6-5, Diners 4-6-4, or no separators at all. */
function groupingOk(groups: readonly number[]): boolean {
  if (groups.length === 1) return true;
  if (groups.length === 3 && groups[0] === 4 && groups[1] === 6 && (groups[2] === 5 || groups[2] === 4)) return true;
  for (let i = 0; i < groups.length - 1; i++) if (groups[i] !== 4) return false;
  const last = groups[groups.length - 1] as number;
  return last >= 1 && last <= 4;
}

export const creditCard: Recognizer = {
  entity: 'CREDIT_CARD',
  id: 'credit-card',
  pattern: '\\d(?:[ \\-]?\\d){12,18}',
  validate(text, start, end) {
    if (!numericBoundaryBefore(text, start) || text[start - 1] === '#') return -1;
    // Walk the groups; the pattern is greedy, so a number that follows (`… 1111 12 months`) may be attached:
    // try every group end, longest first.
    const groups: number[] = [];
    const groupEnds: number[] = [];
    let sep = '';
    let run = 0;
    let digits = '';
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      if (isDigitCode(c)) {
        run++;
        digits += text[i];
        continue;
      }
      const ch = text[i] as string;
      if (sep === '') sep = ch;
      else if (sep !== ch) break; // mixed separators: the card, if any, ended before
      groups.push(run);
      groupEnds.push(i);
      run = 0;
    }
    if (run > 0 && groupEnds.length === groups.length) {
      groups.push(run);
      groupEnds.push(end);
    }
    // `… 6191 0138 3991 5695 7640 7588`, `QQ78 6839 …`: a full group with digits right before, in the same grouping,
    // means a longer number (an account number, an IBAN), not a card.
    if (sep !== '' && text[start - 1] === sep && start >= 5 && GROUP_BEFORE.test(text.slice(start - 6, start - 1))) return -1;
    let count = digits.length;
    for (let g = groups.length; g >= 1; g--) {
      const e = groupEnds[g - 1] as number;
      if (g < groups.length) count -= groups[g] as number;
      if (count < 13 || count > 19) continue;
      // `1234 5678 9012 3456 7890 1234` continues in the same grouping: an account number, not a card and a tail.
      // Read the text, not `groups`: the pattern stops at 19 digits, mid-group.
      if (sep !== '' && text[e] === sep && skipDigits(text, e + 1) - (e + 1) >= 4) continue;
      if (!numericBoundaryAfter(text, e)) continue;
      const d = digits.slice(0, count);
      if (groupingOk(groups.slice(0, g)) && luhnValid(d) && knownIssuer(d)) return e;
    }
    return -1;
  },
  resumeAfterReject: nextCardStart,
};

/**
 * After a rejected candidate, the next start worth trying: a valid card's first printed group is 4 digits (every
 * grouping above starts with one) or, unspaced, the whole 13-19 digit number; and it starts a digit run. Skipping
 * other positions changes nothing the validator would accept, and keeps digit soup like `1 2 3 4 …` linear.
 */
function nextCardStart(text: string, start: number): number {
  let i = skipDigits(text, start);
  while (i < text.length) {
    if (!isDigitCode(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const runEnd = skipDigits(text, i);
    const len = runEnd - i;
    // A run that reaches the end of what we have may still grow (streams): stop there and let the validator decide.
    if (len === 4 || len >= 13 || runEnd >= text.length) return i;
    i = runEnd;
  }
  return text.length;
}
