/**
 * Text hidden in base64: what a string that looks encoded really carries. A sender's word (a `data:` prefix, a media
 * type, a key name) never makes a string invisible to the policies; only bytes that are really base64 of something
 * that is not text do, and only where a wire format's schema puts media (docs/policies.md, "What is judged").
 */

/** What a base64 payload holds: bytes that are not text, text, or it is not base64 at all. */
export type Encoded = 'binary' | 'text' | 'not_base64';

/** A `data:[type][;param]*;base64,payload` URL split; null when the string is not a base64 data URL. */
export interface DataUrl {
  /** Lower-cased media type ('' when the URL names none). */
  readonly mediaType: string;
  /** Index of the payload's first character. */
  readonly payloadAt: number;
}

const BASE64_MARK = ';base64,';

export function parseDataUrl(v: string): DataUrl | null {
  if (!v.startsWith('data:')) return null;
  const comma = v.indexOf(',', 5);
  // The header is short (a media type and a few parameters); a long one is not a data URL a provider decodes.
  if (comma < 0 || comma > 256) return null;
  if (v.lastIndexOf(BASE64_MARK, comma) !== comma - BASE64_MARK.length + 1) return null;
  const semi = v.indexOf(';', 5);
  return { mediaType: v.slice(5, semi).trim().toLowerCase(), payloadAt: comma + 1 };
}

/**
 * Media types whose bytes are text a model reads: decoded and judged whatever the bytes look like. Everything else is
 * judged by its bytes (a PNG that is really text is text).
 */
export function isTextMediaType(t: string): boolean {
  if (t === '') return false;
  if (t.startsWith('text/')) return true;
  const sub = t.slice(t.indexOf('/') + 1);
  return sub === 'json' || sub === 'xml' || sub.endsWith('+json') || sub.endsWith('+xml') || sub === 'javascript'
    || sub === 'x-javascript' || sub === 'ecmascript' || sub === 'yaml' || sub === 'x-yaml' || sub === 'x-www-form-urlencoded'
    || sub === 'x-sh' || sub === 'sql' || sub === 'graphql' || sub === 'ld+json' || sub === 'rtf' || sub === 'x-ndjson';
}

/** 1 for base64's characters, both alphabets (standard `+/`, URL-safe `-_`); `=` only as padding, checked apart. */
const B64 = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  B64[c] = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47 || c === 45 || c === 95 ? 1 : 0;
}

/**
 * True when `v[from..]` is base64 and nothing else: one alphabet, padding only at the end, a length a decoder accepts.
 * Stops at the first other character (prose fails within a word).
 */
export function isBase64(v: string, from = 0): boolean {
  let end = v.length;
  while (end > from && v.charCodeAt(end - 1) === 61 /* = */ && v.length - end < 2) end--;
  const n = end - from;
  if (n <= 0) return false;
  let std = false;
  let url = false;
  for (let i = from; i < end; i++) {
    const c = v.charCodeAt(i);
    if (c >= 128 || B64[c] === 0) return false;
    if (c === 43 || c === 47) std = true;
    else if (c === 45 || c === 95) url = true;
  }
  if (std && url) return false;
  if (end < v.length) return (v.length - from) % 4 === 0;
  return n % 4 !== 1;
}

/** How many leading bytes decide "text or not": enough to pass a file's header and reach its body. */
const SNIFF_CHARS = 1024;

/** Whether decoded bytes read as text: no NUL and no control character but tab, line breaks and form feed. */
export function looksLikeText(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 12) return false;
    if (b === 127) return false;
  }
  return true;
}

/**
 * What the base64 at `v[from..]` holds. `declared` is the media type the sender gave (a data URL's, a part's
 * `mimeType`): a text type is taken at its word; any other type is checked against the bytes.
 */
export function classifyBase64(v: string, from: number, declared: string): Encoded {
  if (!isBase64(v, from)) return 'not_base64';
  if (isTextMediaType(declared)) return 'text';
  // Decoding a 4-aligned prefix reads the same bytes the whole payload starts with.
  const head = Buffer.from(v.slice(from, from + SNIFF_CHARS), 'base64');
  return looksLikeText(head) ? 'text' : 'binary';
}

/** The text base64 at `v[from..]` carries (UTF-8; Latin-1 where the bytes are not valid UTF-8). */
export function decodeText(v: string, from: number): string {
  const bytes = Buffer.from(from === 0 ? v : v.slice(from), 'base64');
  try {
    return UTF8.decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** `text` encoded back in the original's place: the same prefix, alphabet and padding. */
export function encodeText(original: string, from: number, text: string): string {
  const payload = original.slice(from);
  const urlSafe = /[-_]/.test(payload);
  const padded = payload.endsWith('=');
  let b64 = Buffer.from(text, 'utf8').toString(urlSafe ? 'base64url' : 'base64');
  if (urlSafe && padded) b64 += '='.repeat((4 - (b64.length % 4)) % 4);
  if (!urlSafe && !padded) b64 = b64.replace(/=+$/, '');
  return original.slice(0, from) + b64;
}

/**
 * Where a bare string may be base64 of text: long enough that a word is not mistaken for it. Shorter strings are
 * judged as written only.
 */
export const BARE_BASE64_MIN = 16;
