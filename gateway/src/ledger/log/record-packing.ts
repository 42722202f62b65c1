/**
 * A reversible rewrite of a record's canonical text before it is compressed (version 3, record-codec.ts): every JSON
 * string of exactly 32 or 64 lowercase hex digits, quotes included (the previous entry's hash, an answer's SHA-256, a
 * trace id), becomes one marker byte and its 16 or 32 bytes. LZ4 has no entropy coding, so hex costs a byte per digit
 * however it is compressed; packed, a proxied call's three such strings take 80 bytes less.
 *
 * Canonical JSON never holds a byte below 0x20 (JSON escapes control characters), so the markers cannot be text; a
 * text that does hold one is not packed.
 */
const QUOTE = 0x22;
const HEX16 = 0x01;
const HEX32 = 0x02;
const DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/** Each byte's value as a lowercase hex digit, or -1. */
const NIBBLE = new Int8Array(256).fill(-1);
for (let i = 0; i < 16; i++) NIBBLE[DIGITS[i]!] = i;

/** The length of the run of lowercase hex digits at `at`, counted up to 65. */
function hexRun(text: Uint8Array, at: number): number {
  let n = 0;
  while (n < 65 && at + n < text.length && NIBBLE[text[at + n]!]! >= 0) n++;
  return n;
}

/** The text with its hex strings packed; null when it holds a byte below 0x20 (then it is compressed as it is). */
export function packHex(text: Uint8Array): Buffer | null {
  const out = Buffer.allocUnsafe(text.length);
  let o = 0;
  let i = 0;
  while (i < text.length) {
    const b = text[i]!;
    if (b < 0x20) return null;
    if (b === QUOTE) {
      const n = hexRun(text, i + 1);
      if ((n === 32 || n === 64) && text[i + 1 + n] === QUOTE) {
        out[o++] = n === 32 ? HEX16 : HEX32;
        for (let k = i + 1, end = i + 1 + n; k < end; k += 2) out[o++] = (NIBBLE[text[k]!]! << 4) | NIBBLE[text[k + 1]!]!;
        i += n + 2;
        continue;
      }
    }
    out[o++] = b;
    i++;
  }
  return out.subarray(0, o);
}

/** The text `packHex` was given; RangeError on bytes it cannot have made (a marker cut short). */
export function unpackHex(packed: Uint8Array): Buffer {
  let size = 0;
  for (let i = 0; i < packed.length; ) {
    const b = packed[i]!;
    const bytes = b === HEX16 ? 16 : b === HEX32 ? 32 : 0;
    if (bytes === 0) {
      size++;
      i++;
      continue;
    }
    if (i + 1 + bytes > packed.length) throw new RangeError('not a packed ledger record');
    size += bytes * 2 + 2;
    i += bytes + 1;
  }
  const out = Buffer.allocUnsafe(size);
  let o = 0;
  for (let i = 0; i < packed.length; ) {
    const b = packed[i]!;
    const bytes = b === HEX16 ? 16 : b === HEX32 ? 32 : 0;
    if (bytes === 0) {
      out[o++] = b;
      i++;
      continue;
    }
    out[o++] = QUOTE;
    for (let k = i + 1, end = i + 1 + bytes; k < end; k++) {
      out[o++] = DIGITS[packed[k]! >> 4]!;
      out[o++] = DIGITS[packed[k]! & 15]!;
    }
    out[o++] = QUOTE;
    i += bytes + 1;
  }
  return out;
}
