/**
 * Where each part of a normalised view came from in the original text. The view is built left to right from
 * pieces that are either copied or substituted character for character (offsets map one to one) or decoded (an
 * escape, an entity or a character cluster that normalisation rewrote into another length: a position inside one maps
 * to its whole original span). Offsets
 * are absolute on both sides, so a stream's view can forget its start (`dropBefore`) as its text is trimmed.
 */
export class OffsetMap {
  // Piece i covers view [v[i], v[i+1]) and original [o[i], o[i+1]); the last one ends at (viewEnd, origEnd).
  #v: number[] = [];
  #o: number[] = [];
  #copied: boolean[] = [];
  #head = 0;
  #decoded = 0;
  viewEnd: number;
  origEnd: number;

  constructor(viewStart = 0, origStart = 0) {
    this.viewEnd = viewStart;
    this.origEnd = origStart;
  }

  /** How many pieces were rewritten (substituted or decoded): 0 means the view is the original. */
  get rewritten(): number {
    return this.#decoded;
  }

  /** `n` characters copied as they are. */
  copy(n: number): void {
    if (n <= 0) return;
    const last = this.#v.length - 1;
    if (last < this.#head || !this.#copied[last]) this.#push(true);
    this.viewEnd += n;
    this.origEnd += n;
  }

  /** `n` characters each written as one other character (`ａ` as `a`): offsets map one to one, as copied ones do. */
  substitute(n: number): void {
    this.copy(n);
    this.#decoded++;
  }

  /** `origLen` original characters written as `viewLen` view characters (both at least 1). */
  decode(viewLen: number, origLen: number): void {
    this.#push(false);
    this.viewEnd += viewLen;
    this.origEnd += origLen;
    this.#decoded++;
  }

  /** The original offset where the view character at `p` comes from (a decoded piece's start); `viewEnd` maps to `origEnd`. */
  startOf(p: number): number {
    if (p >= this.viewEnd) return this.origEnd;
    const i = this.#find(this.#v, p);
    const v = this.#v[i] as number;
    const o = this.#o[i] as number;
    return this.#copied[i] ? o + (p - v) : o;
  }

  /** The original offset just past the view character at `p - 1` (a decoded piece's end). */
  endOf(p: number): number {
    if (p <= (this.#v[this.#head] ?? this.viewEnd)) return this.startOf(p);
    const i = this.#find(this.#v, p - 1);
    const v = this.#v[i] as number;
    const o = this.#o[i] as number;
    return this.#copied[i] ? o + (p - v) : this.#next(this.#o, i, this.origEnd);
  }

  /** The view offset of original offset `o` (a decoded piece's view start when `o` falls inside its span). */
  viewOf(o: number): number {
    if (o >= this.origEnd) return this.viewEnd;
    const i = this.#find(this.#o, o);
    const v = this.#v[i] as number;
    const oi = this.#o[i] as number;
    return this.#copied[i] ? v + (o - oi) : v;
  }

  /** Forgets the pieces that end at or before view offset `p` (nothing before it is asked for again). */
  dropBefore(p: number): void {
    const n = this.#v.length;
    while (this.#head + 1 < n && (this.#v[this.#head + 1] as number) <= p) this.#head++;
    // Compact now and then, so a long stream's map stays as small as its window.
    if (this.#head > 64 && this.#head * 2 > n) {
      this.#v = this.#v.slice(this.#head);
      this.#o = this.#o.slice(this.#head);
      this.#copied = this.#copied.slice(this.#head);
      this.#head = 0;
    }
  }

  #push(copied: boolean): void {
    this.#v.push(this.viewEnd);
    this.#o.push(this.origEnd);
    this.#copied.push(copied);
  }

  #next(xs: number[], i: number, end: number): number {
    return i + 1 < xs.length ? (xs[i + 1] as number) : end;
  }

  /** Index of the last piece starting at or before `x` (pieces from the head on; `x` at least the head's start). */
  #find(xs: number[], x: number): number {
    let lo = this.#head;
    let hi = xs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((xs[mid] as number) <= x) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
