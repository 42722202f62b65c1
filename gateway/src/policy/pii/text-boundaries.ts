/**
 * Character-class helpers the validators share. RE2's `\b` is ASCII-only and cannot see JSON escapes, so the
 * boundary rules live here, in code: a prompt may be scanned as raw JSON, where `\n4111…` puts a letter `n` right
 * before a card number.
 */

export function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function isAsciiAlnumCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

const WORDISH = /[\p{L}\p{N}_]/u;

/** Letter, digit or underscore in any script. */
export function isWordChar(text: string, i: number): boolean {
  if (i < 0 || i >= text.length) return false;
  const c = text.charCodeAt(i);
  if (c < 128) return isAsciiAlnumCode(c) || c === 95;
  return WORDISH.test(text[i] as string);
}

/** True when text[i-1] ends a JSON escape (`\n`, `\t`, `\r`, `\"`, `\/`) that a raw JSON body puts before a value. */
function endsJsonEscape(text: string, i: number): boolean {
  if (i < 2 || text.charCodeAt(i - 2) !== 92) return false;
  // An escaped backslash (`\\n`) means the `n` is a plain letter.
  if (i >= 3 && text.charCodeAt(i - 3) === 92) return false;
  const c = text[i - 1];
  return c === 'n' || c === 't' || c === 'r' || c === '"' || c === '/';
}

/** Nothing word-like touches position i from the left (start of text, space, punctuation, or a JSON escape). */
export function boundaryBefore(text: string, i: number): boolean {
  if (i === 0) return true;
  if (!isWordChar(text, i - 1)) return true;
  return endsJsonEscape(text, i);
}

/** Nothing word-like touches position j from the right. */
export function boundaryAfter(text: string, j: number): boolean {
  return j >= text.length || !isWordChar(text, j);
}

const NUMERIC_JOINERS = '.,-/:';

/** A number starts at i: boundary, and not the tail of a longer number such as `12.4111…` or `2024-123…`. */
export function numericBoundaryBefore(text: string, i: number): boolean {
  if (!boundaryBefore(text, i)) return false;
  if (i >= 2 && NUMERIC_JOINERS.includes(text[i - 1] as string) && isDigitCode(text.charCodeAt(i - 2))) return false;
  return true;
}

/** A number ends at j: boundary, and not continued by `.5`, `-12`, `/3`, `,00`. */
export function numericBoundaryAfter(text: string, j: number): boolean {
  if (!boundaryAfter(text, j)) return false;
  if (j + 1 < text.length && NUMERIC_JOINERS.includes(text[j] as string) && isDigitCode(text.charCodeAt(j + 1))) {
    return false;
  }
  return true;
}

/** First index at or after i that is not an ASCII digit (every start inside a digit run has a digit before it). */
export function skipDigits(text: string, i: number): number {
  let k = i;
  while (k < text.length && isDigitCode(text.charCodeAt(k))) k++;
  return Math.max(k, i + 1);
}

/** First index at or after i that is not an ASCII letter or digit. */
export function skipAlnum(text: string, i: number): number {
  let k = i;
  while (k < text.length && isAsciiAlnumCode(text.charCodeAt(k))) k++;
  return Math.max(k, i + 1);
}

/** The ASCII digits of text[start, end), as a string. */
export function digitsOf(text: string, start: number, end: number): string {
  let out = '';
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (isDigitCode(c)) out += text[i];
  }
  return out;
}
