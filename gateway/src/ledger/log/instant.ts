/**
 * Unix milliseconds of a date-time string exactly as `Date.parse` reads it (NaN where it reads none). The ledger
 * writes `created_at` as `toISOString()` does (`YYYY-MM-DDTHH:mm:ss.sssZ`), and every local append and every entry a
 * sidecar ships is read back through here (twice at the control plane: validation, then the COPY row). That form is
 * read by arithmetic, about ten times cheaper than `Date.parse` (~0.2-0.6 µs a call on this project's machine);
 * anything else (offsets, other precisions, hour 24, a field out of range) goes to `Date.parse` itself.
 */
export function instantMs(s: string): number {
  const ms = isoInstantMs(s);
  return Number.isNaN(ms) ? Date.parse(s) : ms;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Unix milliseconds of s when s is exactly what `toISOString()` writes for them (a real calendar date-time in
 * `YYYY-MM-DDTHH:mm:ss.sssZ`), else NaN: a caller that stores the number instead of the text knows it reads back.
 */
export function isoInstantMs(s: string): number {
  if (
    s.length !== 24 ||
    s.charCodeAt(4) !== 45 || // -
    s.charCodeAt(7) !== 45 ||
    s.charCodeAt(10) !== 84 || // T
    s.charCodeAt(13) !== 58 || // :
    s.charCodeAt(16) !== 58 ||
    s.charCodeAt(19) !== 46 || // .
    s.charCodeAt(23) !== 90 // Z
  ) {
    return Number.NaN;
  }
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  const ms = digits(s, 20, 3);
  // Out of range or not digits (instantMs lets Date.parse decide: it refuses most, reads 24:00:00.000 as the next
  // midnight and 31 April as 1 May).
  if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || ms < 0) {
    return Number.NaN;
  }
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > MONTH_DAYS[month - 1]! + (leap ? 1 : 0)) return Number.NaN;
  // Days since the epoch of the proleptic Gregorian date (H. Hinnant's days_from_civil).
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  const days = era * 146_097 + dayOfEra - 719_468;
  return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + ms;
}

/** The decimal number in s[from, from + count), or -1 when a character there is not a digit. */
function digits(s: string, from: number, count: number): number {
  let n = 0;
  for (let i = from; i < from + count; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}
