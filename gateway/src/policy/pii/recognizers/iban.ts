import type { Recognizer } from '../recognizer.js';
import { boundaryBefore, isAsciiAlnumCode, skipAlnum } from '../text-boundaries.js';

/** IBAN lengths by country (SWIFT IBAN registry). */
const IBAN_LENGTH: ReadonlyMap<string, number> = new Map(
  Object.entries({
    AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BI: 27, BR: 29, BY: 28, CH: 21, CR: 22,
    CY: 28, CZ: 24, DE: 22, DJ: 27, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FK: 18, FO: 18, FR: 27, GB: 22,
    GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30,
    KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20, LV: 21, LY: 25, MC: 27, MD: 24, ME: 22, MK: 19, MN: 20, MR: 27,
    MT: 31, MU: 30, NI: 28, NL: 18, NO: 15, OM: 23, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, RU: 33,
    SA: 24, SC: 31, SD: 18, SE: 24, SI: 19, SK: 24, SM: 27, SO: 23, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26, UA: 29,
    VA: 22, VG: 24, XK: 20, YE: 30,
  }),
);

/** ISO 13616 check: move the first four characters to the end, letters to numbers (A=10), remainder mod 97 is 1. */
export function ibanMod97Valid(compact: string): boolean {
  const s = compact.slice(4) + compact.slice(0, 4);
  let r = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) r = (r * 10 + (c - 48)) % 97;
    else r = (r * 100 + (c - 55)) % 97;
  }
  return r === 1;
}

export const iban: Recognizer = {
  entity: 'IBAN',
  id: 'iban',
  pattern: '[A-Z]{2}\\d{2}(?:[ \\-]?[A-Z0-9]){11,30}',
  validate(text, start, end) {
    if (!boundaryBefore(text, start)) return -1;
    const want = IBAN_LENGTH.get(text.slice(start, start + 2));
    if (want === undefined) return -1;
    // The pattern may run into an upper-case word that follows: take exactly the country's length.
    let compact = '';
    let sep = '';
    let i = start;
    let group = 0;
    for (; i < end && compact.length < want; i++) {
      const ch = text[i] as string;
      if (isAsciiAlnumCode(text.charCodeAt(i))) {
        compact += ch;
        group++;
        continue;
      }
      if (sep === '') sep = ch;
      // Printed IBANs group by four with one kind of separator.
      if (sep !== ch || group !== 4) return -1;
      group = 0;
    }
    if (compact.length !== want) return -1;
    if (i < text.length && isAsciiAlnumCode(text.charCodeAt(i))) return -1;
    return ibanMod97Valid(compact) ? i : -1;
  },
  resumeAfterReject: (text, start) => skipAlnum(text, start),
};
