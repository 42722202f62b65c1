import { hash } from 'node:crypto';

// node:crypto's one-shot `hash()` beat streaming createHash (~1.5x) and @noble/hashes (~5x on a 650-byte entry,
// ~1.5x on a 65-byte Merkle node) on this machine: see bench/src/ledger-hash.ts and docs/ledger.md.

/**
 * SHA-256 of `input` as 32 bytes. Asked for a Buffer, `hash()` copies the digest into a Buffer with a backing store
 * of its own, which costs more than hashing a Merkle node. The digest as a latin1 ('binary') string, one char per
 * byte, copied into a small Buffer from Node's pool, halves the call: 65-byte nodes at ~1.7M/s against ~0.8M/s,
 * entries at ~0.75-1.05M/s against ~0.47-0.68M/s (bench/src/ledger-hash.ts). The ledger hashes about three times per
 * entry. The few digests kept long (a tenant's head and Merkle peaks) each hold a slice of an 8 KiB pool block.
 */
export function sha256Bytes(input: string | Uint8Array): Buffer {
  return Buffer.from(hash('sha256', input, 'binary'), 'latin1');
}

/**
 * Whether a string is a hash as the ledger writes it: 64 lowercase hex digits. A loop over char codes, since the
 * control plane checks two per shipped entry and the equivalent regular expression took ~4 % of its ingest CPU.
 */
export function isHashHex(s: string): boolean {
  if (s.length !== 64) return false;
  for (let i = 0; i < 64; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** prev_hash of seq 1. */
export const GENESIS_PREV_HASH = '0'.repeat(64);

/**
 * hash = SHA-256( UTF-8( prev_hash ‖ JCS(entry without `hash`) ) ), as 32 raw bytes (hex on the wire).
 * prev_hash is the previous entry's lowercase hex hash (64 ASCII chars); JCS = RFC 8785 canonical JSON.
 */
export function entryHash(prevHash: string, canonicalWithoutHash: string): Buffer {
  return sha256Bytes(prevHash + canonicalWithoutHash);
}

let entryInput = Buffer.allocUnsafe(64 * 1024);

/** entryHash over bytes: prev_hash (ASCII) and canonical UTF-8 text already encoded, joined in a reused buffer. */
export function entryHashOfBytes(prevHash: string, canonical: Uint8Array): Buffer {
  const needed = 64 + canonical.length;
  if (entryInput.length < needed) entryInput = Buffer.allocUnsafe(needed * 2);
  entryInput.write(prevHash, 0, 'latin1');
  entryInput.set(canonical, 64);
  return sha256Bytes(entryInput.subarray(0, needed));
}

// One scratch buffer for the 0x00/0x01-prefixed Merkle inputs: `hash()` copies its input synchronously.
const scratch = Buffer.alloc(65);

/** RFC 9162 leaf hash: SHA-256(0x00 ‖ leaf data); the leaf data is the entry's 32-byte hash. */
export function leafHash(entryHashBytes: Uint8Array): Buffer {
  scratch[0] = 0x00;
  scratch.set(entryHashBytes, 1);
  return sha256Bytes(scratch.subarray(0, 33));
}

/** RFC 9162 interior node: SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  scratch[0] = 0x01;
  scratch.set(left, 1);
  scratch.set(right, 33);
  return sha256Bytes(scratch);
}

/** MTH of the empty tree (RFC 9162 §2.1.1): SHA-256 of the empty string. */
export const EMPTY_ROOT = sha256Bytes('');
