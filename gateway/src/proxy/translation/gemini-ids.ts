/**
 * OpenAI tool call ids for Gemini's function calls. Gemini's generateContent pairs a `functionResponse` with its call by
 * name and position, and its calls rarely carry an id: the translation mints one per call, unique per answer
 * (`call_<nonce>_<index>`), and carries the call's `thoughtSignature` inside it (`call_<nonce>_<index>_<signature>`,
 * base64url so the id stays within `[A-Za-z0-9_-]`, which every provider of a route accepts). Gemini 3 refuses a
 * history whose function calls lost their signatures; an id is the one field every OpenAI client sends back untouched.
 */

const PREFIX = 'call_';

const PLUS = /\+/g;
const SLASH = /\//g;
const PADDING = /=+$/;
const DASH = /-/g;
const UNDERSCORE = /_/g;

/** A fresh nonce for one answer's ids: base36, never an underscore. */
export function idNonce(): string {
  return Math.random().toString(36).slice(2, 12);
}

/** The OpenAI id of an answer's `index`-th function call (counted from 0 over the whole answer). */
export function toolCallId(nonce: string, index: number, signature: unknown): string {
  const id = `${PREFIX}${nonce}_${index}`;
  if (typeof signature !== 'string' || signature === '') return id;
  return `${id}_${signature.replace(PLUS, '-').replace(SLASH, '_').replace(PADDING, '')}`;
}

/** The thought signature an id minted by toolCallId carries (standard base64, padded), or null. */
export function signatureOf(id: string): string | null {
  if (!id.startsWith(PREFIX)) return null;
  const nonceEnd = id.indexOf('_', PREFIX.length);
  if (nonceEnd < 0) return null;
  const indexEnd = id.indexOf('_', nonceEnd + 1);
  if (indexEnd < 0 || indexEnd === nonceEnd + 1 || indexEnd === id.length - 1) return null;
  for (let i = nonceEnd + 1; i < indexEnd; i++) {
    const c = id.charCodeAt(i);
    if (c < 48 || c > 57) return null;
  }
  const b64 = id.slice(indexEnd + 1).replace(DASH, '+').replace(UNDERSCORE, '/');
  const pad = b64.length % 4;
  return pad === 0 ? b64 : b64 + '='.repeat(4 - pad);
}
