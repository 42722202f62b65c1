import type RE2 from 're2';
import type { Candidate, CompiledPii } from './compile.js';
import { applyRedactions, mergeCandidates } from './compile.js';
import type { Recognizer } from './recognizer.js';

export interface PiiStreamRedactor {
  /** Returns the text that is now safe to emit (redacted); holds back only a tail that could still be an entity. */
  push(chunk: string): string;
  /** Flushes the held tail (redacted). */
  end(): string;
  /** How many entities were redacted so far. */
  readonly matches: number;
}

/**
 * Absolute position of the leftmost match of `re` (anchored at the end) at or after raw index `from`. `search` on a
 * slice, because it returns just an index: RE2's `exec` builds a match array and costs ten times more per call. The
 * prefix patterns have no assertions, so the slice loses no context.
 */
function leftmostGrowth(re: RE2 | null, raw: string, from: number, base: number, B: number): number {
  if (re === null) return B;
  const at = re.search(from === 0 ? raw : raw.slice(from));
  return at < 0 ? B : base + from + at;
}

/** Raw characters kept before the emitted point: validators and RE2 look up to 4 back (JSON escapes, `12.` joins). */
const CONTEXT = 8;
/** Validators look up to 2 characters past a candidate (`4111….` vs `4111….5`). */
const LOOKAHEAD = 2;

/**
 * Streams redaction with the exact result of redacting the whole text: for any split into chunks,
 * concat(push(c_i)…, end()) === redact(text).text (tested over random splits).
 *
 * How: the buffer keeps what is not yet emitted. After each chunk, the growth pattern (prefix languages, anchored at
 * the end) finds the first position F from which an entity could still be growing; every decision about a candidate
 * starting before F is final, because no path of any pattern from there reaches the end of what we have. Each
 * recognizer keeps its own search position across chunks, so it makes the same decisions as one pass over the whole
 * text. We emit up to F (or up to the start of a match that straddles it) and keep only that tail. On ordinary prose
 * the tail is the last word; a card number, an e-mail or a PEM key is held until it can no longer grow.
 */
export class StreamRedactor implements PiiStreamRedactor {
  private raw = '';
  /** Absolute offset of raw[0]. */
  private base = 0;
  /** Absolute offset up to which output was produced. */
  private emitted = 0;
  /** Per recognizer: absolute position its next search starts from. */
  private readonly pos: number[];
  /** Validated candidates not emitted yet (absolute offsets). */
  private pending: Candidate[] = [];
  private count = 0;
  private ended = false;
  /** A high surrogate that ended the last chunk: held until its pair arrives, so no offset ever splits a pair. */
  private carry = '';

  constructor(private readonly c: CompiledPii) {
    this.pos = new Array<number>(c.recognizers.length).fill(0);
  }

  get matches(): number {
    return this.count;
  }

  push(chunk: string): string {
    if (this.ended) throw new Error('PiiStreamRedactor: push() after end()');
    if (chunk.length === 0) return '';
    let text = this.carry + chunk;
    this.carry = '';
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.carry = text.slice(-1);
      text = text.slice(0, -1);
      if (text.length === 0) return '';
    }
    this.raw += text;
    return this.advance(false);
  }

  end(): string {
    if (this.ended) return '';
    this.raw += this.carry;
    this.carry = '';
    const out = this.advance(true);
    this.ended = true;
    this.raw = '';
    return out;
  }

  private advance(final: boolean): string {
    const c = this.c;
    const raw = this.raw;
    const base = this.base;
    const B = base + raw.length;
    const pos = this.pos;
    let minPos = B;
    for (const p of pos) if (p < minPos) minPos = p;

    // F: first position from which some entity could still be growing. A bounded pattern cannot have a growing
    // match that started more than its maximum length ago, so its search starts no earlier than that.
    let F = B;
    if (!final && minPos < B) {
      F = leftmostGrowth(c.growth, raw, Math.max(minPos, B - c.growthWindow) - base, base, B);
      // Open-ended recognizers (PEM keys) all start with '-': without one there is nothing open to find.
      if (c.openGrowth !== null && raw.indexOf('-', Math.max(minPos, B - c.openGrowthWindow) - base) >= 0) {
        const from = Math.max(minPos, B - c.openGrowthWindow);
        F = Math.min(F, leftmostGrowth(c.openGrowth, raw, from - base, base, B));
      }
    }

    let E = F;
    if (c.set !== null && minPos < B) {
      const from = minPos - base;
      // The set reads bytes: node-re2 would convert a string to UTF-8 itself, at several times Buffer.from's cost.
      const hits = c.set.match(Buffer.from(from === 0 ? raw : raw.slice(from), 'utf8'));
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

    // Merge what is final; a merged match that straddles E waits, so it can still absorb later overlaps.
    const cands = this.pending;
    let out: string;
    if (cands.length === 0) {
      out = raw.slice(this.emitted - base, E - base);
    } else {
      const groups = mergeCandidates(c, cands);
      let cut = E;
      let n = 0;
      for (const g of groups) {
        if (g.end <= cut) n++;
        else {
          if (g.start < cut) cut = g.start;
          break;
        }
      }
      const emitNow = groups.slice(0, n);
      out = applyRedactions(raw, emitNow, this.emitted - base, cut - base, base);
      this.count += n;
      this.pending = n === 0 ? cands : cands.filter((x) => x.start >= cut);
      E = cut;
    }
    this.emitted = E;
    let keepFrom = Math.max(base, E - CONTEXT);
    // Keep surrogate pairs whole in the context too.
    const lo = raw.charCodeAt(keepFrom - base);
    if (keepFrom > base && lo >= 0xdc00 && lo <= 0xdfff) keepFrom--;
    if (keepFrom > base) {
      this.raw = raw.slice(keepFrom - base);
      this.base = keepFrom;
    }
    return out;
  }

  /**
   * Runs recognizer k from its position; final candidates go to `pending`. Returns the position before which
   * output may be emitted as far as k is concerned (B when k has nothing open).
   */
  private scanUntil(k: number, F: number, B: number, final: boolean): number {
    const c = this.c;
    const re = c.regexes[k];
    const rec = c.recognizers[k] as Recognizer;
    const raw = this.raw;
    const base = this.base;
    if (re === undefined) return B;
    let p = this.pos[k] as number;
    for (;;) {
      if (p >= B) break;
      re.lastIndex = p - base;
      const m = re.exec(raw);
      if (m === null) break;
      const s = base + m.index;
      const e = s + (m[0] as string).length;
      if (s >= F) break;
      if (!final && e + LOOKAHEAD > B) {
        // The validator would need characters that have not arrived: decide later, from the same place.
        this.pos[k] = s;
        return s;
      }
      const end = rec.validate(raw, s - base, e - base);
      if (end >= 0) {
        if (!final && base + end + LOOKAHEAD > B) {
          this.pos[k] = s;
          return s;
        }
        this.pending.push({ k, start: s, end: base + end });
        p = base + end > s ? base + end : s + 1;
      } else {
        p = base + (rec.resumeAfterReject ? rec.resumeAfterReject(raw, s - base, e - base) : s - base + 1);
      }
    }
    // No match of k starts before F (or p already passed it): searching from F finds what searching from p would.
    this.pos[k] = p > F ? p : F;
    return B;
  }
}
