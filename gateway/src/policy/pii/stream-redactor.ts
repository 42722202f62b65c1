import type { Candidate, CompiledPii } from './compile.js';
import { applyRedactions, mergeCandidates } from './compile.js';
import { mayNormalise, normaliseInto } from './normalise.js';
import { OffsetMap } from './offset-map.js';
import { StreamScan } from './stream-scan.js';

export interface PiiStreamRedactor {
  /** Returns the text that is now safe to emit (redacted); holds back only a tail that could still be an entity. */
  push(chunk: string): string;
  /** Flushes the held tail (redacted). */
  end(): string;
  /** How many entities were redacted so far. */
  readonly matches: number;
}

/** The normalised view of the stream, while it is open: its scan, where it came from, how far it is built. */
interface View {
  scan: StreamScan;
  map: OffsetMap;
  /** Absolute offset in the written text up to which the view is built. */
  builtTo: number;
}

/** The last code point of `s` (both halves of a surrogate pair). */
function lastCodePoint(s: string): string {
  if (s.length === 0) return '';
  const lo = s.charCodeAt(s.length - 1);
  return lo >= 0xdc00 && lo <= 0xdfff && s.length >= 2 ? s.slice(-2) : s.slice(-1);
}

/**
 * Streams redaction with the exact result of redacting the whole text: for any split into chunks,
 * concat(push(c_i)…, end()) === redact(text).text (tested over random splits).
 *
 * The text as written is scanned by one `StreamScan`. While the text holds something normalisation rewrites
 * (`normalise.ts`: an escape, even one cut at the chunk's end, or a character NFKC changes), its normalised view is
 * built as text arrives and scanned by a second one, whose candidates are mapped back to the written text; the view
 * holds back an escape cut at the end, so `&#6` + `4;` is caught. Output goes up to where both scans are final (or
 * to the start of a match that straddles that point); the rest is held. When the held text holds nothing to rewrite
 * any more, the view is closed, so plain text is scanned once. On ordinary prose the held tail is the last word; a
 * card number, an e-mail or a PEM key is held until it can no longer grow.
 */
export class StreamRedactor implements PiiStreamRedactor {
  private readonly written: StreamScan;
  private view: View | null = null;
  /** Absolute offset up to which output was produced. */
  private emitted = 0;
  /** Validated candidates not emitted yet (absolute offsets in the written text). */
  private pending: Candidate[] = [];
  private count = 0;
  private ended = false;
  /** A high surrogate that ended the last chunk: held until its pair arrives, so no offset ever splits a pair. */
  private carry = '';

  constructor(private readonly c: CompiledPii) {
    this.written = new StreamScan(c, 0, 0, (k, start, end) => this.pending.push({ k, start, end }));
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
    if (this.view === null && this.needsView(text)) this.openView();
    this.written.text += text;
    return this.advance(false);
  }

  end(): string {
    if (this.ended) return '';
    this.written.text += this.carry;
    this.carry = '';
    const out = this.advance(true);
    this.ended = true;
    this.written.text = '';
    this.view = null;
    return out;
  }

  /** Whether `text`, about to be appended, holds something normalisation rewrites (an escape cut at its end too). */
  private needsView(text: string): boolean {
    if (mayNormalise(text, false, true)) return true;
    // A combining mark at the chunk's start composes with the character before it.
    return text.charCodeAt(0) >= 0x300 && mayNormalise(lastCodePoint(this.written.text) + text, false, true);
  }

  /**
   * Starts the view at the emitted point. What comes before it there (the validators' context) held nothing to
   * rewrite, or the view would be open already, so it is copied as it is.
   */
  private openView(): void {
    const w = this.written;
    const map = new OffsetMap(0, w.base);
    const context = this.emitted - w.base;
    map.copy(context);
    const scan = new StreamScan(this.c, 0, context, (k, start, end) => this.pending.push({ k, start: map.startOf(start), end: map.endOf(end) }));
    scan.text = w.text.slice(0, context);
    this.view = { scan, map, builtTo: this.emitted };
  }

  private advance(final: boolean): string {
    const w = this.written;
    let E = w.advance(final);
    const v = this.view;
    if (v !== null) {
      const built = normaliseInto(w.text, v.builtTo - w.base, final, v.map);
      v.scan.text += built.text;
      v.builtTo = w.base + built.stop;
      // The view's end maps to where it is built to: what is not built yet is held.
      E = Math.min(E, v.map.startOf(v.scan.advance(final && v.builtTo === w.end)));
    }

    // Merge what is final; a merged match that straddles E waits, so it can still absorb later overlaps.
    const text = w.text;
    const base = w.base;
    const cands = this.pending;
    let out: string;
    if (cands.length === 0) {
      out = text.slice(this.emitted - base, E - base);
    } else {
      const groups = mergeCandidates(this.c, cands);
      let cut = E;
      let n = 0;
      for (const g of groups) {
        if (g.end <= cut) n++;
        else {
          if (g.start < cut) cut = g.start;
          break;
        }
      }
      out = applyRedactions(text, groups.slice(0, n), this.emitted - base, cut - base, base);
      this.count += n;
      this.pending = n === 0 ? cands : cands.filter((x) => x.start >= cut);
      E = cut;
    }
    this.emitted = E;
    w.trim(E);
    if (v !== null) {
      if (v.builtTo === w.end && !mayNormalise(w.text, false, true)) {
        // Nothing held needs the view any more: its candidates are pending already, and the written scan alone
        // takes the same decisions on plain text.
        this.view = null;
      } else {
        v.scan.trim(v.map.viewOf(E));
        v.map.dropBefore(v.scan.base);
      }
    }
    return out;
  }
}
