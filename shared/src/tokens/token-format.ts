import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Secret tokens in the style of GitHub's `ghp_` tokens: a recognisable prefix, 30 random base62 characters and a
 * 6-character CRC32 checksum, so secret scanners can find a leaked token and reject a mistyped one offline.
 * Tokens carry 178 bits of entropy, so one SHA-256 is the right storage hash (a slow KDF only helps low-entropy
 * secrets such as passwords, and would cost every request).
 */
export type TokenKind = 'pat' | 'sk' | 'ses' | 'sct';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LEN = 30;
const CHECK_LEN = 6;

function base62(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(s: string): number {
  let c = 0xffffffff;
  for (let i = 0; i < s.length; i++) c = (CRC_TABLE[(c ^ s.charCodeAt(i)) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function tokenPrefix(kind: TokenKind): string {
  return `adu_${kind}_`;
}

export function generateToken(kind: TokenKind): string {
  const bytes = randomBytes(BODY_LEN);
  let body = '';
  // 248 = 62 * 4: rejecting bytes >= 248 keeps every character uniformly likely.
  for (let i = 0; i < bytes.length && body.length < BODY_LEN; i++) {
    const b = bytes[i] as number;
    if (b < 248) body += ALPHABET[b % 62];
  }
  while (body.length < BODY_LEN) {
    const b = randomBytes(1)[0] as number;
    if (b < 248) body += ALPHABET[b % 62];
  }
  return `${tokenPrefix(kind)}${body}${base62(crc32(body), CHECK_LEN)}`;
}

/** True when the string has the token shape of that kind and its checksum matches. */
export function isWellFormedToken(token: string, kind: TokenKind): boolean {
  const prefix = tokenPrefix(kind);
  if (token.length !== prefix.length + BODY_LEN + CHECK_LEN || !token.startsWith(prefix)) return false;
  const body = token.slice(prefix.length, prefix.length + BODY_LEN);
  for (let i = 0; i < body.length; i++) if (!ALPHABET.includes(body[i] as string)) return false;
  return token.slice(prefix.length + BODY_LEN) === base62(crc32(body), CHECK_LEN);
}

/** One-shot crypto.hash: createHash fetches the digest under a lock on every call (OpenSSL 3), which showed here. */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}
