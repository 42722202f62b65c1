/**
 * Derives, from an RE2 pattern, a pattern for its prefix language: every string that some path of the pattern can
 * consume before it reaches the end of the input. The stream redactor uses it to know from where a match might
 * still be growing at the end of what has arrived so far, so it holds back exactly that tail and nothing more.
 *
 * Only the syntax our recognizers use is supported (literals, escapes, classes, groups, alternation, greedy or lazy
 * quantifiers, empty-width assertions); anything else throws at start-up, never per request. The result is a
 * superset (assertions are dropped, repetition minimums relaxed), which is what the hold-back needs: holding back a
 * little more is safe, holding back less is not.
 */

type Node =
  | { t: 'atom'; src: string }
  | { t: 'assert' }
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'rep'; body: Node; min: number; max: number; quant: string };

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  parse(): Node {
    const n = this.alt();
    if (this.i !== this.s.length) throw new Error(`regex-prefix: unexpected '${this.s[this.i]}' at ${this.i} in ${this.s}`);
    return n;
  }

  private alt(): Node {
    const items = [this.seq()];
    while (this.s[this.i] === '|') {
      this.i++;
      items.push(this.seq());
    }
    return items.length === 1 ? (items[0] as Node) : { t: 'alt', items };
  }

  private seq(): Node {
    const items: Node[] = [];
    while (this.i < this.s.length && this.s[this.i] !== '|' && this.s[this.i] !== ')') {
      let n = this.primary();
      n = this.quantified(n);
      items.push(n);
    }
    return { t: 'seq', items };
  }

  private quantified(n: Node): Node {
    for (;;) {
      const c = this.s[this.i];
      let max: number;
      let min = 0;
      const from = this.i;
      if (c === '*' || c === '+') {
        max = Infinity;
        min = c === '+' ? 1 : 0;
        this.i++;
      } else if (c === '?') {
        max = 1;
        this.i++;
      } else if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.s.slice(this.i));
        if (!m) throw new Error(`regex-prefix: bad quantifier at ${this.i} in ${this.s}`);
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
        this.i += m[0].length;
      } else {
        return n;
      }
      if (this.s[this.i] === '?') this.i++;
      n = { t: 'rep', body: n, min, max, quant: this.s.slice(from, this.i) };
    }
  }

  private primary(): Node {
    const s = this.s;
    const c = s[this.i] as string;
    if (c === '(') {
      if (s.startsWith('(?:', this.i)) this.i += 3;
      else if (s.startsWith('(?P<', this.i) || s.startsWith('(?<', this.i)) this.i = s.indexOf('>', this.i) + 1;
      else if (s[this.i + 1] === '?') throw new Error(`regex-prefix: unsupported group in ${s}`);
      else this.i++;
      const body = this.alt();
      if (s[this.i] !== ')') throw new Error(`regex-prefix: unclosed group in ${s}`);
      this.i++;
      return { t: 'seq', items: [body] };
    }
    if (c === '[') {
      let j = this.i + 1;
      if (s[j] === '^') j++;
      if (s[j] === ']') j++;
      while (j < s.length && s[j] !== ']') j += s[j] === '\\' ? 2 : 1;
      if (j >= s.length) throw new Error(`regex-prefix: unclosed class in ${s}`);
      const src = s.slice(this.i, j + 1);
      this.i = j + 1;
      return { t: 'atom', src };
    }
    if (c === '\\') {
      const d = s[this.i + 1] as string;
      if ('bBAz'.includes(d)) {
        this.i += 2;
        return { t: 'assert' };
      }
      if (d === 'p' || d === 'P') {
        const close = s[this.i + 2] === '{' ? s.indexOf('}', this.i) + 1 : this.i + 3;
        const src = s.slice(this.i, close);
        this.i = close;
        return { t: 'atom', src };
      }
      this.i += 2;
      return { t: 'atom', src: `\\${d}` };
    }
    if (c === '^' || c === '$') {
      this.i++;
      return { t: 'assert' };
    }
    this.i++;
    return { t: 'atom', src: c };
  }
}

/**
 * Relaxed mode turns every bounded repetition `{m,n}` into `{m,}`: a superset again, and the one RE2 can search fast. Bounded
 * counters (`[a-z]{0,62}`) in an unanchored search make the DFA track one counter per possible start, a new state
 * per input character; the caller bounds the search window by the pattern's maximum length instead.
 */
let relaxed = false;

/** The node's language with assertions removed. */
function body(n: Node): string {
  switch (n.t) {
    case 'atom':
      return n.src;
    case 'assert':
      return '';
    case 'seq':
      return n.items.map(body).join('');
    case 'alt':
      return `(?:${n.items.map(body).join('|')})`;
    case 'rep':
      // Keep the minimum: dropping it would let `[A-Z]{2}\d{2}…` start anywhere, e.g. at a space.
      if (relaxed && n.max > 1) return `(?:${body(n.body)})${n.min === 0 ? '*' : `{${n.min},}`}`;
      return `(?:${body(n.body)})${n.quant.replace(/\?$/, n.quant.length > 1 ? '' : '?')}`;
  }
}

/** Every prefix of the node's language, the empty string included. */
function pre(n: Node): string {
  switch (n.t) {
    case 'atom':
      return `(?:${n.src})?`;
    case 'assert':
      return '';
    case 'seq': {
      const items = n.items.filter((x) => x.t !== 'assert');
      if (items.length === 0) return '';
      // Pre(A B) = Pre(A) | A Pre(B), folded from the right so the size stays linear in the pattern.
      let acc = pre(items[items.length - 1] as Node);
      for (let k = items.length - 2; k >= 0; k--) {
        const it = items[k] as Node;
        acc = `(?:${pre(it)}|${body(it)}${acc})`;
      }
      return acc;
    }
    case 'alt':
      return `(?:${n.items.map(pre).join('|')})`;
    case 'rep': {
      if (n.max <= 1) return pre(n.body);
      const times = n.max === Infinity || relaxed ? '*' : `{0,${n.max - 1}}`;
      return `(?:${body(n.body)})${times}${pre(n.body)}`;
    }
  }
}

/**
 * RE2 source matching the prefixes (empty included) of what `pattern` can consume, ignoring assertions; with
 * `relax`, bounded repetitions become unbounded (see `relaxed`).
 */
export function prefixLanguage(pattern: string, relax = false): string {
  relaxed = relax;
  try {
    return pre(new Parser(pattern).parse());
  } finally {
    relaxed = false;
  }
}

/** `pattern` with bounded repetitions made unbounded (a superset). */
export function relaxRepetitions(pattern: string): string {
  relaxed = true;
  try {
    return body(new Parser(pattern).parse());
  } finally {
    relaxed = false;
  }
}

/** Atoms that may match a character outside the BMP count as two UTF-16 units. */
function atomWidth(src: string): number {
  return src.startsWith('\\p') || src.startsWith('\\P') || src.startsWith('[^') || src === '.' ? 2 : 1;
}

function maxLen(n: Node): number {
  switch (n.t) {
    case 'atom':
      return atomWidth(n.src);
    case 'assert':
      return 0;
    case 'seq':
      return n.items.reduce((a, x) => a + maxLen(x), 0);
    case 'alt':
      return Math.max(...n.items.map(maxLen));
    case 'rep':
      return n.max === 0 ? 0 : maxLen(n.body) * n.max;
  }
}

/** The longest match of `pattern`, in UTF-16 code units (Infinity when unbounded). */
export function maxMatchLength(pattern: string): number {
  return maxLen(new Parser(pattern).parse());
}
