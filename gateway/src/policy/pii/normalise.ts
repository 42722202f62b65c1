// Over 300 lines on purpose: one pass decodes the three escape grammars into one view and one offset map; split, each
// grammar would walk the text and rebuild the map again.
import { DecodingMode, EntityDecoder, htmlDecodeTree } from 'entities/decode';
import { OffsetMap } from './offset-map.js';

/**
 * The text as a reader sees it, for the recognizers: NFKC (full-width `ａｌｉｃｅ＠ｅｘａｍｐｌｅ．ｃｏｍ`, ligatures,
 * non-breaking spaces, decomposed accents), percent-encoding (`alice%40example.com`, UTF-8 sequences included) and HTML
 * character references (`&#64;`, `&#x40;`, `&commat;`: named ones need their `;`, numeric ones may omit it, as HTML
 * reads them; the HTML5 table comes from the `entities` package). One layer: a decoded escape is normalised but not
 * decoded again. Every decoded piece is mapped to its original span (`OffsetMap`), so a match found in the view
 * redacts the original text, the whole escape included.
 *
 * The view is built only when `mayNormalise` says it can differ, which for ASCII text costs two `indexOf` scans.
 */

/** Longer than any entity name (`&CounterClockwiseContourIntegral;` has 33 characters): past it, not an entity. */
const MAX_ENTITY = 40;
const MARK = /\p{M}/u;
const NON_ASCII = /[^\0-\x7f]/;

const decodedCodePoints: number[] = [];
// One decoder for the process: its use below is synchronous and never re-entered.
const decoder = new EntityDecoder(htmlDecodeTree, (cp) => decodedCodePoints.push(cp));
const utf8 = new TextDecoder('utf-8', { fatal: true });

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  return l >= 97 && l <= 102 ? l - 87 : -1;
}

function isAsciiAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122);
}

/**
 * True when `text` holds something normalisation rewrites. `ascii`: the caller knows the text is ASCII (its UTF-8
 * length equals its length), so only escapes can. `open`: the text may continue (a stream), so an escape cut at its
 * end (`%4`, `&#6`, `&comm`) counts too.
 */
export function mayNormalise(text: string, ascii: boolean, open = false): boolean {
  if (hasEscape(text, open)) return true;
  if (ascii || !NON_ASCII.test(text)) return false;
  // ICU answers from its quick check without copying when the text is already normalised.
  return text.normalize('NFKC') !== text;
}

function hasEscape(text: string, open: boolean): boolean {
  const n = text.length;
  for (let i = text.indexOf('%'); i >= 0; i = text.indexOf('%', i + 1)) {
    if (open && i + 2 >= n && (i + 1 >= n || hexValue(text.charCodeAt(i + 1)) >= 0)) return true;
    if (hexValue(text.charCodeAt(i + 1)) >= 0 && hexValue(text.charCodeAt(i + 2)) >= 0) return true;
  }
  for (let i = text.indexOf('&'); i >= 0; i = text.indexOf('&', i + 1)) {
    const c = text.charCodeAt(i + 1);
    if (c === 35 /* # */ || (open && i + 1 >= n)) return true;
    if (!isAsciiAlnum(c)) continue;
    let j = i + 2;
    while (j < n && j - i < MAX_ENTITY && isAsciiAlnum(text.charCodeAt(j))) j++;
    if (text.charCodeAt(j) === 59 /* ; */ || (open && j >= n)) return true;
  }
  return false;
}

/** What an escape at `at` decodes to: its text and length, 0 when it is none, -1 when the text ends inside it. */
type Decoded = { text: string; length: number } | 0 | -1;

function decodeEntity(src: string, at: number, final: boolean): Decoded {
  decodedCodePoints.length = 0;
  decoder.startEntity(src.charCodeAt(at + 1) === 35 ? DecodingMode.Legacy : DecodingMode.Strict);
  const windowEnd = Math.min(src.length, at + MAX_ENTITY);
  let n = decoder.write(windowEnd === src.length ? src : src.slice(0, windowEnd), at + 1);
  if (n === -1) {
    if (windowEnd < src.length) return 0;
    if (!final) return -1;
    // At the very end a numeric reference needs no `;`; a named one does.
    n = src.charCodeAt(at + 1) === 35 ? decoder.end() : 0;
  }
  if (n <= 0 || decodedCodePoints.length === 0) return 0;
  return { text: String.fromCodePoint(...decodedCodePoints), length: n };
}

/** `%XX` at `at` as a byte, -1 when it is not one, -2 when the text ends inside it. */
function percentByte(src: string, at: number, final: boolean): number {
  if (src.charCodeAt(at) !== 37 /* % */) return at >= src.length && !final ? -2 : -1;
  const hi = hexValue(src.charCodeAt(at + 1));
  const lo = hexValue(src.charCodeAt(at + 2));
  if (hi >= 0 && lo >= 0) return hi * 16 + lo;
  const cut = !final && (at + 1 >= src.length || (hi >= 0 && at + 2 >= src.length));
  return cut ? -2 : -1;
}

function decodePercent(src: string, at: number, final: boolean): Decoded {
  const b0 = percentByte(src, at, final);
  if (b0 < 0) return b0 === -2 ? -1 : 0;
  if (b0 < 0x80) return { text: String.fromCharCode(b0), length: 3 };
  const size = b0 >= 0xc2 && b0 <= 0xdf ? 2 : b0 >= 0xe0 && b0 <= 0xef ? 3 : b0 >= 0xf0 && b0 <= 0xf4 ? 4 : 0;
  if (size === 0) return 0;
  const bytes = new Uint8Array(size);
  bytes[0] = b0;
  for (let k = 1; k < size; k++) {
    const b = percentByte(src, at + 3 * k, final);
    if (b === -2) return -1;
    if (b < 0x80 || b > 0xbf) return 0;
    bytes[k] = b;
  }
  try {
    return { text: utf8.decode(bytes), length: 3 * size };
  } catch {
    return 0; // overlong, surrogate or out of range: not text
  }
}

function codePointLength(src: string, i: number): number {
  const c = src.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < src.length) {
    const d = src.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

/** Start of the code point that ends at `i` (exclusive). */
function previousCodePoint(src: string, i: number): number {
  const c = src.charCodeAt(i - 1);
  if (c >= 0xdc00 && c <= 0xdfff && i >= 2) {
    const h = src.charCodeAt(i - 2);
    if (h >= 0xd800 && h <= 0xdbff) return i - 2;
  }
  return i - 1;
}

// Which BMP code points are combining marks, one page of 256 at a time as they are first asked about.
const markPages: (Uint8Array | undefined)[] = [];

function isMarkAt(src: string, i: number, len: number): boolean {
  const c = src.charCodeAt(i);
  if (c < 0x300) return false;
  if (len === 2) return MARK.test(src.slice(i, i + 2));
  let page = markPages[c >> 8];
  if (page === undefined) {
    page = new Uint8Array(256);
    for (let k = 0; k < 256; k++) page[k] = MARK.test(String.fromCharCode((c & 0xff00) | k)) ? 1 : 0;
    markPages[c >> 8] = page;
  }
  return page[c & 0xff] === 1;
}

/** End of the cluster (a code point and the marks after it) that starts at `i`. */
function clusterEnd(src: string, i: number): number {
  let e = i + codePointLength(src, i);
  while (e < src.length) {
    const len = codePointLength(src, e);
    if (!isMarkAt(src, e, len)) break;
    e += len;
  }
  return e;
}

/** Start of the last cluster of `src` that starts at or after `from`. */
function lastClusterStart(src: string, from: number): number {
  let i = src.length;
  while (i > from) {
    const p = previousCodePoint(src, i);
    i = p;
    if (!isMarkAt(src, p, codePointLength(src, p))) break;
  }
  return Math.max(i, from);
}

function isFullWidth(c: number): boolean {
  return (c >= 0xff01 && c <= 0xff5e) || c === 0x3000;
}

function asciiOfFullWidth(src: string, start: number, end: number): string {
  const codes = new Array<number>(end - start);
  for (let k = start; k < end; k++) {
    const c = src.charCodeAt(k);
    codes[k - start] = c === 0x3000 ? 0x20 : c - 0xfee0;
  }
  return String.fromCharCode(...codes);
}

/** Non-ASCII text is checked this many characters at a time: one ICU call says a whole block is already normalised. */
const BLOCK = 256;
const ESCAPE = /[%&]/g;
// Text that is not normalised tends to repeat the same few characters (full-width forms): their NFKC is kept.
const clusterCache = new Map<string, string>();

function nfkc(cluster: string): string {
  let nf = clusterCache.get(cluster);
  if (nf === undefined) {
    nf = cluster.normalize('NFKC');
    if (clusterCache.size >= 4096) clusterCache.clear();
    clusterCache.set(cluster, nf);
  }
  return nf;
}

/**
 * Appends the view of `src` from `from` to `map` and returns it with the offset where it stopped. With `final` it
 * goes to the end; otherwise it stops before what more text could still change (an escape cut at the end, or the last
 * character cluster, since a combining mark may follow), and a later call resumes there. The result is the same for
 * any split of the text into calls.
 */
export function normaliseInto(src: string, from: number, final: boolean, map: OffsetMap): { text: string; stop: number } {
  let out = '';
  let copyFrom = from;
  let i = from;
  let stop = -1;
  // Non-ASCII characters before this offset are known to be normalised already (their block was checked whole).
  let normalUntil = from;
  // Blocks before this offset were not normalised: their clusters are checked one by one.
  let checkedUntil = from;
  // The next `%` or `&` (searched again only once passed, so long text is read once).
  let nextEscape = -1;
  const decoded = (text: string, start: number, end: number, normalised = false): void => {
    out += src.slice(copyFrom, start);
    map.copy(start - copyFrom);
    const nf = normalised || (text.length === 1 && text.charCodeAt(0) < 0x80) ? text : text.normalize('NFKC');
    out += nf;
    if (nf.length === 1 && end - start === 1) map.substitute(1);
    else map.decode(nf.length, end - start);
    copyFrom = end;
  };
  const n = src.length;
  while (stop < 0) {
    // The next place where the view may differ: an escape's start or a non-ASCII character.
    let s = i;
    let c = 0;
    for (; s < n; s++) {
      c = src.charCodeAt(s);
      if (c >= 0x80 || c === 37 /* % */ || c === 38 /* & */) break;
    }
    if (s >= n) break;
    if (c === 37 /* % */ || c === 38 /* & */) {
      const d = c === 37 ? decodePercent(src, s, final) : decodeEntity(src, s, final);
      if (d === -1) stop = s;
      else if (d === 0) i = s + 1;
      else {
        decoded(d.text, s, s + d.length);
        i = s + d.length;
      }
      continue;
    }
    if (s < normalUntil) {
      // Inside a block known to be normalised: on to its next escape, or past it.
      if (nextEscape < s) {
        ESCAPE.lastIndex = s;
        nextEscape = ESCAPE.exec(src)?.index ?? src.length;
      }
      i = nextEscape < normalUntil ? nextEscape : normalUntil;
      continue;
    }
    // A character cluster: a code point and the combining marks after it. A mark that begins one takes the character
    // before it along when that one is still copied text (not an escape).
    let cs = s;
    if (cs > copyFrom && isMarkAt(src, cs, codePointLength(src, cs))) cs = previousCodePoint(src, cs);
    if (s >= checkedUntil) {
      const blockEnd = s + BLOCK >= src.length ? src.length : clusterEnd(src, s + BLOCK);
      const block = src.slice(cs, blockEnd);
      if (block.normalize('NFKC') === block) {
        normalUntil = blockEnd;
        i = s;
        continue;
      }
      checkedUntil = blockEnd;
    }
    if (cs === s && isFullWidth(c)) {
      // Full-width ASCII and the ideographic space, the commonest rewrite, a run at a time: NFKC maps them one to
      // one onto ASCII. The last one stays out when a mark follows it (or may, at the end): it goes as a cluster.
      let e = s + 1;
      while (e < n && e - s < 4096 && isFullWidth(src.charCodeAt(e))) e++;
      if (e < n ? isMarkAt(src, e, codePointLength(src, e)) : !final) e--;
      if (e > s) {
        out += src.slice(copyFrom, s);
        map.copy(s - copyFrom);
        out += asciiOfFullWidth(src, s, e);
        map.substitute(e - s);
        copyFrom = i = e;
        continue;
      }
    }
    const ce = clusterEnd(src, s);
    if (ce >= src.length && !final) {
      stop = cs;
      continue;
    }
    if (!(ce - cs === 1 && c >= 0xc0 && c <= 0xff)) {
      // (Latin-1 letters alone, most non-ASCII text in Portuguese, Spanish, French…, are already normalised.)
      const cluster = src.slice(cs, ce);
      const nf = nfkc(cluster);
      if (nf !== cluster) decoded(nf, cs, ce, true);
    }
    i = ce;
  }
  if (stop < 0) {
    // Held back unless final: the last cluster, which a combining mark in the next text may join.
    stop = final ? src.length : lastClusterStart(src, copyFrom);
  }
  if (stop > copyFrom) {
    out += src.slice(copyFrom, stop);
    map.copy(stop - copyFrom);
  }
  return { text: out, stop };
}

/** The normalised view of a whole text with its offset map, or null when it would be the text itself. */
export function normalisedView(text: string): { text: string; map: OffsetMap } | null {
  const map = new OffsetMap();
  const view = normaliseInto(text, 0, true, map);
  return map.rewritten === 0 ? null : { text: view.text, map };
}
