import type RE2 from 're2';
import type { CompiledPii } from './compile.js';
import type { Recognizer } from './recognizer.js';

/**
 * Absolute position of the leftmost match of `re` (anchored at the end) at or after text index `from`. `search` on a
 * slice, because it returns just an index: RE2's `exec` builds a match array and costs ten times more per call. The
 * prefix patterns have no assertions, so the slice loses no context.
 */
function leftmostGrowth(re: RE2 | null, text: string, from: number, base: number, B: number): number {
  if (re === null) return B;
  const at = re.search(from === 0 ? text : text.slice(from));
  return at < 0 ? B : base + from + at;
}

/** Characters kept before the emitted point: validators and RE2 look up to 4 back (JSON escapes, `12.` joins). */
export const CONTEXT = 8;
/** Validators look up to 2 characters past a candidate (`4111….` vs `4111….5`). */
const LOOKAHEAD = 2;

/**
 * One scan over a growing text (a stream's text as written, or its normalised view), taking the same decisions as
 * one pass over the whole text would.
 *
 * How: after each piece of text, the growth pattern (prefix languages, anchored at the end) finds the first position F
 * from which an entity could still be growing; every decision about a candidate starting before F is final, because
 * no path of any pattern from there reaches the end of what we have. Each recognizer keeps its own search position
 * across pieces. `advance` hands over the final candidates and says up to where nothing can change any more; the
 * owner then trims what it no longer needs.
 */
export class StreamScan {
  text = '';
  /** Per recognizer: absolute position its next search starts from. */
  private readonly pos: number[];

  /**
   * `base`: the absolute offset of the text's first character; `from`: where the search starts (`base` plus any
   * context before it). `found` receives each final candidate: recognizer index and absolute span.
   */
  constructor(
    private readonly c: CompiledPii,
    /** Absolute offset of text[0]. */
    public base: number,
    from: number,
    private readonly found: (k: number, start: number, end: number) => void,
  ) {
    this.pos = new Array<number>(c.recognizers.length).fill(from);
  }

  get end(): number {
    return this.base + this.text.length;
  }

  /** Scans what arrived; returns the absolute position before which every candidate is final (the end when none is open). */
  advance(final: boolean): number {
    const c = this.c;
    const text = this.text;
    const base = this.base;
    const B = base + text.length;
    const pos = this.pos;
    let minPos = B;
    for (const p of pos) if (p < minPos) minPos = p;

    // F: first position from which some entity could still be growing. A bounded pattern cannot have a growing
    // match that started more than its maximum length ago, so its search starts no earlier than that.
    let F = B;
    if (!final && minPos < B) {
      F = leftmostGrowth(c.growth, text, Math.max(minPos, B - c.growthWindow) - base, base, B);
      // Open-ended recognizers (PEM keys) all start with '-': without one there is nothing open to find.
      if (c.openGrowth !== null && text.indexOf('-', Math.max(minPos, B - c.openGrowthWindow) - base) >= 0) {
        const from = Math.max(minPos, B - c.openGrowthWindow);
        F = Math.min(F, leftmostGrowth(c.openGrowth, text, from - base, base, B));
      }
    }

    let E = F;
    if (c.set !== null && minPos < B) {
      const from = minPos - base;
      // The set reads bytes: node-re2 would convert a string to UTF-8 itself, at several times Buffer.from's cost.
      const hits = c.set.match(Buffer.from(from === 0 ? text : text.slice(from), 'utf8'));
      // RE2.Set reports indices in no particular order.
      if (hits.length > 1) hits.sort((a, b) => a - b);
      let h = 0;
      for (let k = 0; k < pos.length; k++) {
        if (hits[h] !== k) {
          // The set saw no match of k anywhere in the unscanned text: nothing starts before F.
          if ((pos[k] as number) < F) pos[k] = F;
          continue;
        }
        h++;
        const stop = this.scanUntil(k, F, B, final);
        if (stop < E) E = stop;
      }
    }
    return E;
  }

  /** Forgets the text before `at`, but for the context validators read, keeping surrogate pairs whole. */
  trim(at: number): void {
    const base = this.base;
    let keepFrom = Math.max(base, at - CONTEXT);
    const lo = this.text.charCodeAt(keepFrom - base);
    if (keepFrom > base && lo >= 0xdc00 && lo <= 0xdfff) keepFrom--;
    if (keepFrom > base) {
      this.text = this.text.slice(keepFrom - base);
      this.base = keepFrom;
    }
  }

  /**
   * Runs recognizer k from its position; final candidates go to `found`. Returns the position before which
   * output may be emitted as far as k is concerned (B when k has nothing open).
   */
  private scanUntil(k: number, F: number, B: number, final: boolean): number {
    const c = this.c;
    const re = c.regexes[k];
    const rec = c.recognizers[k] as Recognizer;
    const text = this.text;
    const base = this.base;
    if (re === undefined) return B;
    let p = this.pos[k] as number;
    for (;;) {
      if (p >= B) break;
      re.lastIndex = p - base;
      const m = re.exec(text);
      if (m === null) break;
      const s = base + m.index;
      const e = s + (m[0] as string).length;
      if (s >= F) break;
      if (!final && e + LOOKAHEAD > B) {
        // The validator would need characters that have not arrived: decide later, from the same place.
        this.pos[k] = s;
        return s;
      }
      const end = rec.validate(text, s - base, e - base);
      if (end >= 0) {
        if (!final && base + end + LOOKAHEAD > B) {
          this.pos[k] = s;
          return s;
        }
        this.found(k, s, base + end);
        p = base + end > s ? base + end : s + 1;
      } else {
        p = base + (rec.resumeAfterReject ? rec.resumeAfterReject(text, s - base, e - base) : s - base + 1);
      }
    }
    // No match of k starts before F (or p already passed it): searching from F finds what searching from p would.
    this.pos[k] = p > F ? p : F;
    return B;
  }
}
