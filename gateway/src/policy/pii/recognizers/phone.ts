import type { Recognizer } from '../recognizer.js';
import { digitsOf, numericBoundaryAfter, numericBoundaryBefore, skipDigits } from '../text-boundaries.js';

// Brazilian area codes (DDD) in use, from Anatel's numbering plan.
const BR_DDD = new Set(
  [
    11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 24, 27, 28, 31, 32, 33, 34, 35, 37, 38, 41, 42, 43, 44, 45, 46, 47, 48,
    49, 51, 53, 54, 55, 61, 62, 63, 64, 65, 66, 67, 68, 69, 71, 73, 74, 75, 77, 79, 81, 82, 83, 84, 85, 86, 87, 88, 89,
    91, 92, 93, 94, 95, 96, 97, 98, 99,
  ].map(String),
);

/** Subscriber number rules: mobiles have 9 digits starting with 9, landlines 8 digits starting with 2-5. */
function brSubscriberOk(sub: string): boolean {
  if (sub.length === 9) return sub[0] === '9';
  if (sub.length === 8) return sub[0] !== undefined && sub[0] >= '2' && sub[0] <= '5';
  return false;
}

/** National significant number lengths for common country codes; others fall back to E.164's 8-15 digits. */
const CC_LENGTHS: ReadonlyMap<string, readonly [number, number]> = new Map([
  ['1', [11, 11]],
  ['7', [11, 11]],
  ['33', [11, 11]],
  ['34', [11, 11]],
  ['39', [10, 13]],
  ['44', [11, 12]],
  ['49', [10, 15]],
  ['52', [12, 12]],
  ['54', [12, 13]],
  ['55', [12, 13]],
  ['351', [12, 12]],
]);

function e164LengthOk(digits: string): boolean {
  if (digits.length < 8 || digits.length > 15) return false;
  for (const cc of [digits.slice(0, 3), digits.slice(0, 2), digits.slice(0, 1)]) {
    const range = CC_LENGTHS.get(cc);
    if (range) {
      if (digits.length < range[0] || digits.length > range[1]) return false;
      if (cc === '55') return BR_DDD.has(digits.slice(2, 4)) && brSubscriberOk(digits.slice(4));
      return true;
    }
  }
  return true;
}

/** A code-like context before the number: `SKU-21 3344-5566`, `#21 …`, `v.21 …`. */
function codePrefix(text: string, start: number): boolean {
  const p = text[start - 1];
  return p === '-' || p === '_' || p === '#' || p === '.' || p === '+' || p === '=';
}

/**
 * International numbers in E.164 shape: `+` country code, then digit groups with optional single separators and one
 * optional parenthesised group (`+55 (11) 91234-5678`, `+1 415-555-2671`, `+447911123456`).
 */
export const phoneE164: Recognizer = {
  entity: 'PHONE',
  id: 'phone-e164',
  pattern: '\\+[1-9]\\d{0,2}(?:[ .\\-]?\\(?\\d{1,5}\\)?){1,6}',
  validate(text, start, end) {
    if (!numericBoundaryBefore(text, start) || codePrefix(text, start)) return -1;
    // Greedy groups may swallow a number that follows (`+1 415 555 2671 2 items`): try group ends, longest first.
    for (let e = end; e > start + 2; e--) {
      const last = text[e - 1] as string;
      const atGroupEnd = (last === ')' || (last >= '0' && last <= '9')) && (e === end || /[ .\-(]/.test(text[e] as string));
      if (!atGroupEnd || !numericBoundaryAfter(text, e) || !balanced(text, start, e)) continue;
      if (e164LengthOk(digitsOf(text, start, e))) return e;
    }
    return -1;
  },
};

function balanced(text: string, start: number, end: number): boolean {
  let open = 0;
  let pairs = 0;
  for (let i = start; i < end; i++) {
    const c = text[i];
    if (c === '(') {
      if (open) return false;
      open = 1;
    } else if (c === ')') {
      if (!open) return false;
      open = 0;
      pairs++;
    }
  }
  return open === 0 && pairs <= 1;
}

/**
 * Brazilian national formats: `(11) 91234-5678`, `11 91234-5678`, `(11) 9 1234-5678`, `(21) 3456-7890`,
 * `011 3456 7890`. A separator or parentheses after the area code is required: bare 10-11 digit runs are as often
 * order or protocol numbers as phones.
 */
export const phoneBr: Recognizer = {
  entity: 'PHONE',
  id: 'phone-br',
  pattern: '(?:\\(0?\\d{2}\\)|0?\\d{2})[ .\\-]?(?:9[ .]?)?\\d{4}[ .\\-]?\\d{4}',
  validate(text, start, end) {
    if (!numericBoundaryBefore(text, start) || codePrefix(text, start)) return -1;
    if (!numericBoundaryAfter(text, end)) return -1;
    if (text[end] === '-') return -1;
    const paren = text[start] === '(';
    const ddEnd = paren ? text.indexOf(')', start) + 1 : start + (text[start] === '0' ? 3 : 2);
    const afterDdd = text[ddEnd];
    if (!paren && afterDdd !== ' ' && afterDdd !== '-' && afterDdd !== '.') return -1;
    let national = digitsOf(text, start, end);
    // A leading trunk 0 (`(011) 3456-7890`) is dialled but is not part of the number.
    if (national[0] === '0') national = national.slice(1);
    const ddd = national.slice(0, 2);
    if (!BR_DDD.has(ddd) || !brSubscriberOk(national.slice(2))) return -1;
    return end;
  },
  resumeAfterReject: (text, start) => skipDigits(text, start),
};
