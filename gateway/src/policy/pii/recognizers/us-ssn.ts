import type { Recognizer } from '../recognizer.js';
import { numericBoundaryAfter, numericBoundaryBefore, skipDigits } from '../text-boundaries.js';

/** Numbers the SSA never issued but that circulate (advertising, the Woolworth wallet card). */
const NEVER_ISSUED = new Set(['078051120', '219099999', '457555462', '123456789']);

/** SSA rules: area not 000, 666 or 9xx (ITINs); group not 00; serial not 0000. */
export function ssnValid(d: string): boolean {
  if (d.length !== 9) return false;
  const area = d.slice(0, 3);
  if (area === '000' || area === '666' || area[0] === '9') return false;
  if (d.slice(3, 5) === '00' || d.slice(5) === '0000') return false;
  return !NEVER_ISSUED.has(d);
}

export const usSsn: Recognizer = {
  entity: 'US_SSN',
  id: 'us-ssn',
  // `123-45-6789` or `123 45 6789`; a bare nine-digit run is too often something else.
  pattern: '\\d{3}[ \\-]\\d{2}[ \\-]\\d{4}',
  validate(text, start, end) {
    if (!numericBoundaryBefore(text, start) || !numericBoundaryAfter(text, end)) return -1;
    if (text[start + 3] !== text[start + 6]) return -1; // one separator kind (no backreferences in RE2)
    if (text[end] === '-' || text[start - 1] === '-') return -1;
    const d = text.slice(start, start + 3) + text.slice(start + 4, start + 6) + text.slice(start + 7, end);
    return ssnValid(d) ? end : -1;
  },
  resumeAfterReject: (text, start) => skipDigits(text, start),
};
