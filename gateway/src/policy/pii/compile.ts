import RE2 from 're2';
import type { PiiEntity, PiiMatch } from './entities.js';
import type { Recognizer } from './recognizer.js';
import { recognizersFor } from './recognizers/index.js';
import { mayNormalise, normalisedView } from './normalise.js';
import { maxMatchLength, prefixLanguage, relaxRepetitions } from './regex-prefix.js';

/** A found, validated candidate of recognizer `k` (index into `recognizers`), before overlaps are merged. */
export interface Candidate {
  k: number;
  start: number;
  end: number;
}

/**
 * Everything a redactor needs, compiled once (docs/architecture.md: nothing compiled per request):
 * - `set`: one RE2.Set over all patterns. One linear pass answers "which recognizers can match at all"; most
 *   prompts hold no PII, so this single call is the whole cost of the common case.
 * - `regexes`: one global RE2 per recognizer, run only for the recognizers the set named.
 * - `growth`: the prefix languages of the bounded patterns, anchored at the end: its leftmost match in a stream's
 *   buffer, searched no further back than `growthWindow` (the longest possible match), is the first place where an
 *   entity could still be growing, i.e. how much the stream must hold back. `openGrowth` does the same for the
 *   recognizers whose validator extends a match without bound (PEM keys), searched over the whole open buffer.
 */
export interface CompiledPii {
  readonly entities: readonly PiiEntity[];
  readonly recognizers: readonly Recognizer[];
  readonly regexes: readonly RE2[];
  readonly set: ReturnType<typeof RE2.Set> | null;
  readonly growth: RE2 | null;
  readonly growthWindow: number;
  readonly openGrowth: RE2 | null;
  readonly openGrowthWindow: number;
}

export function compilePii(entities: readonly PiiEntity[]): CompiledPii {
  const recognizers = recognizersFor(entities);
  const regexes = recognizers.map((r) => new RE2(r.pattern, 'gu'));
  const set = recognizers.length ? new RE2.Set(recognizers.map((r) => r.pattern), 'u') : null;
  const bounded = recognizers.filter((r) => r.growth === undefined);
  const open = recognizers.filter((r) => r.growth !== undefined);
  const anchoredAtEnd = (ps: string[]): RE2 | null => (ps.length ? new RE2(`(?:${ps.join('|')})$`, 'u') : null);
  const growth = anchoredAtEnd(bounded.map((r) => prefixLanguage(r.pattern, true)));
  const growthWindow = bounded.reduce((w, r) => Math.max(w, maxMatchLength(r.pattern)), 0);
  if (!Number.isFinite(growthWindow)) throw new Error('PII recognizer patterns must be bounded unless they declare growth');
  const openGrowth = anchoredAtEnd(
    open.map((r) => `${prefixLanguage(r.pattern, true)}|${relaxRepetitions(r.growth as string)}`),
  );
  const openGrowthWindow = open.reduce((w, r) => Math.max(w, r.maxLength ?? Infinity), 0);
  if (!Number.isFinite(openGrowthWindow)) throw new Error('PII recognizers with growth must declare maxLength');
  return {
    entities: Object.freeze([...entities]),
    recognizers,
    regexes,
    set,
    growth,
    growthWindow,
    openGrowth,
    openGrowthWindow,
  };
}

/**
 * Scans recognizer k of `c` over `text` from `from`, appending validated candidates to `out`. `ascii`, when given,
 * is `text` as a UTF-8 buffer of an ASCII-only text (so byte offsets are UTF-16 offsets): every regex then reads the
 * one buffer instead of each converting the string to UTF-8 again.
 */
export function scanOne(c: CompiledPii, k: number, text: string, from: number, out: Candidate[], ascii?: Buffer): void {
  const re = c.regexes[k] as RE2;
  const rec = c.recognizers[k] as Recognizer;
  let pos = from;
  for (;;) {
    re.lastIndex = pos;
    let s: number;
    let e: number;
    if (ascii !== undefined) {
      const m = re.exec(ascii);
      if (m === null) return;
      s = m.index;
      e = s + m[0].length;
    } else {
      const m = re.exec(text);
      if (m === null) return;
      s = m.index;
      e = s + (m[0] as string).length;
    }
    const end = rec.validate(text, s, e);
    if (end >= 0) {
      out.push({ k, start: s, end });
      pos = end > s ? end : s + 1;
    } else {
      pos = rec.resumeAfterReject ? rec.resumeAfterReject(text, s, e) : s + 1;
    }
    if (pos >= text.length) return;
  }
}

function byPosition(a: Candidate, b: Candidate): number {
  return a.start - b.start || b.end - a.end || a.k - b.k;
}

/**
 * Overlapping candidates become one match spanning their union (nothing may leak), named after the earliest and
 * longest one (ties: recognizer priority). `offset` shifts buffer positions to absolute ones.
 */
export function mergeCandidates(c: CompiledPii, cands: Candidate[], offset = 0): PiiMatch[] {
  if (cands.length > 1) cands.sort(byPosition);
  const out: PiiMatch[] = [];
  let cur: PiiMatch | undefined;
  for (const x of cands) {
    if (cur && x.start + offset < cur.end) {
      if (x.end + offset > cur.end) cur.end = x.end + offset;
      continue;
    }
    cur = { entity: (c.recognizers[x.k] as Recognizer).entity, start: x.start + offset, end: x.end + offset };
    out.push(cur);
  }
  return out;
}

/** Candidates of every recognizer the set names in `text` (`buf`: its UTF-8 bytes). */
function collect(c: CompiledPii, text: string, buf: Buffer, out: Candidate[]): void {
  const hits = (c.set as ReturnType<typeof RE2.Set>).match(buf);
  const ascii = buf.length === text.length ? buf : undefined;
  for (const k of hits) scanOne(c, k, text, 0, out, ascii);
}

/**
 * Full-text scan: the set says which recognizers can match; only those run. The set reads `text` as UTF-8 bytes
 * (`utf8`, when the caller already encoded it): node-re2 would convert a string on every call, at several times the
 * cost of one `Buffer.from`.
 *
 * When the text holds escapes or characters NFKC rewrites (`normalise.ts`; for ASCII text, two `indexOf` scans say
 * whether it can), its normalised view is scanned too and what is found there redacts the original span. The text as
 * written is always scanned as well: decoding never hides what was found before (`ana@example.com&#49;` reads
 * `…com1` decoded).
 */
export function scanText(c: CompiledPii, text: string, utf8?: Buffer): PiiMatch[] {
  if (text.length === 0 || c.set === null) return [];
  const buf = utf8 ?? Buffer.from(text, 'utf8');
  const view = mayNormalise(text, buf.length === text.length) ? normalisedView(text) : null;
  const cands: Candidate[] = [];
  collect(c, text, buf, cands);
  if (view !== null) {
    const found: Candidate[] = [];
    collect(c, view.text, Buffer.from(view.text, 'utf8'), found);
    for (const x of found) cands.push({ k: x.k, start: view.map.startOf(x.start), end: view.map.endOf(x.end) });
  }
  return cands.length === 0 ? [] : mergeCandidates(c, cands);
}

export function redactionLabel(entity: PiiEntity): string {
  return `[REDACTED:${entity}]`;
}

/** text[from, to) with each match (absolute offsets, sorted, inside the range) replaced by its label. */
export function applyRedactions(text: string, matches: readonly PiiMatch[], from = 0, to = text.length, base = 0): string {
  let out = '';
  let at = from;
  for (const m of matches) {
    out += text.slice(at, m.start - base) + redactionLabel(m.entity);
    at = m.end - base;
  }
  return out + text.slice(at, to);
}
