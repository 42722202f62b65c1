/**
 * An estimate of the size of the program RE2 compiles a pattern into: one unit per literal, class or anchor, with
 * counted repetitions expanded as RE2 expands them (`x{1000}` is a thousand copies of `x`). The node binding does not
 * expose RE2's own program size, and a scan's worst-case time grows with it (a DFA that cannot cache its states falls
 * back to work proportional to input length times program size), so this is what the per-tenant limits weigh.
 * Linear in the pattern's length; tolerant of any input (RE2 itself rejects malformed patterns).
 */
export function estimateProgramSize(pattern: string): number {
  // Per open group: size so far, and the size of the last atom (what a following quantifier repeats).
  const totals: number[] = [0];
  const lasts: number[] = [0];
  const n = pattern.length;
  let i = 0;
  while (i < n) {
    const c = pattern[i] as string;
    let atom: number;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      i += 2;
      // \p{Greek}, \x{10FFFF}: skip the braces. Unicode classes expand into many byte ranges: weigh them more.
      if ((next === 'p' || next === 'P' || next === 'x') && pattern[i] === '{') i = skipTo(pattern, i, '}') + 1;
      atom = next === 'p' || next === 'P' ? 8 : 1;
    } else if (c === '[') {
      i = classEnd(pattern, i) + 1;
      atom = 2;
    } else if (c === '(') {
      i++;
      if (pattern[i] === '?') {
        // (?i) sets flags and is no group; (?:…), (?i:…), (?P<name>…) open one.
        const close = pattern.indexOf(')', i);
        const colon = pattern.indexOf(':', i);
        const named = pattern[i + 1] === 'P' || pattern[i + 1] === '<';
        if (!named && close >= 0 && (colon < 0 || close < colon)) {
          i = close + 1;
          continue;
        }
        i = named ? skipTo(pattern, i, '>') + 1 : colon >= 0 ? colon + 1 : n;
      }
      totals.push(0);
      lasts.push(0);
      continue;
    } else if (c === ')') {
      i++;
      if (totals.length > 1) {
        atom = (totals.pop() as number) + 2;
        lasts.pop();
      } else atom = 1;
    } else if (c === '|') {
      i++;
      totals[totals.length - 1]! += 1;
      lasts[lasts.length - 1] = 0;
      continue;
    } else if (c === '*' || c === '+' || c === '?') {
      i++;
      if (pattern[i] === '?') i++;
      totals[totals.length - 1]! += 1;
      continue;
    } else if (c === '{') {
      const rep = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
      if (rep) {
        i += rep[0].length;
        if (pattern[i] === '?') i++;
        const min = Number(rep[1]);
        const max = rep[3] ? Number(rep[3]) : min;
        const times = Math.max(min, max, 1);
        const last = lasts[lasts.length - 1] as number;
        totals[totals.length - 1]! += last * (times - 1) + 1;
        lasts[lasts.length - 1] = last * times;
        continue;
      }
      i++;
      atom = 1;
    } else {
      // A literal (a surrogate pair counts as one character's worth of program, like the rest).
      i++;
      atom = 1;
    }
    totals[totals.length - 1]! += atom;
    lasts[lasts.length - 1] = atom;
  }
  let size = 0;
  for (const t of totals) size += t;
  return size;
}

function skipTo(s: string, from: number, ch: string): number {
  const at = s.indexOf(ch, from);
  return at < 0 ? s.length : at;
}

/** Index of the `]` closing the class opened at `open` (a `]` first in the class is literal; escapes skipped). */
function classEnd(s: string, open: number): number {
  let i = open + 1;
  if (s[i] === '^') i++;
  if (s[i] === ']') i++;
  while (i < s.length) {
    const c = s[i];
    if (c === '\\') i += 2;
    else if (c === '[' && s[i + 1] === ':') i = skipTo(s, i + 2, ']') + 1;
    else if (c === ']') return i;
    else i++;
  }
  return s.length;
}
