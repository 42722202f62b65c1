import { Buffer } from 'node:buffer';
import { compressText, expandText } from './record-compression.js';
import { COMPRESS_FROM_BYTES, RECORD_DICTIONARY_V3 } from './record-dictionary.js';
import { packHex, unpackHex } from './record-packing.js';

/**
 * The bytes stored per entry under [tenant_id, seq]:
 *
 *   [0]            format version: 1, the text as it is; 2, the text LZ4-compressed (record-compression.ts); 3, the
 *                  text with its hex strings packed (record-packing.ts), then LZ4-compressed with the version-3 dictionary
 *   [1, 33)        the entry's hash (raw SHA-256)
 *   [33]           m = number of Merkle subtrees this leaf completed (trailing zero bits of seq)
 *   [34, 34+32m)   their roots, levels 1..m (see merkle.ts)
 *   [34+32m, end)  the entry without `hash` as RFC 8785 canonical JSON, UTF-8: exactly the bytes that were hashed
 *
 * Keeping the canonical text (not a msgpack object) means verification hashes stored bytes without re-encoding,
 * and storing the subtree roots inside the leaf's own record costs no extra LMDB put per append.
 */
const VERSION = 1;
const VERSION_LZ4 = 2;
const VERSION_PACKED = 3;
const HASH_AT = 1;
const COUNT_AT = 33;
const NODES_AT = 34;

export function encodeRecord(hash: Uint8Array, nodes: readonly Uint8Array[], canonical: string): Buffer {
  const textAt = NODES_AT + nodes.length * 32;
  const out = Buffer.allocUnsafe(textAt + Buffer.byteLength(canonical));
  out[0] = VERSION;
  out.set(hash, HASH_AT);
  out[COUNT_AT] = nodes.length;
  for (let i = 0; i < nodes.length; i++) out.set(nodes[i]!, NODES_AT + i * 32);
  out.write(canonical, textAt, 'utf8');
  return out;
}

/** Throws on bytes that are not a record of this format (storage corruption or tampering). */
export function checkRecord(record: Uint8Array): void {
  if (record.length < NODES_AT || (record[0] !== VERSION && !isCompressedRecord(record)) || record.length < NODES_AT + record[COUNT_AT]! * 32) {
    throw new RangeError('not a ledger record');
  }
}

export function recordHash(record: Uint8Array): Uint8Array {
  return record.subarray(HASH_AT, COUNT_AT);
}

export function recordNodeCount(record: Uint8Array): number {
  return record[COUNT_AT]!;
}

/** Root of the subtree at `level` (1-based) completed by this record's leaf. */
export function recordNode(record: Uint8Array, level: number): Uint8Array {
  if (level < 1 || level > record[COUNT_AT]!) throw new RangeError(`record holds no level-${level} subtree`);
  const at = NODES_AT + (level - 1) * 32;
  return record.subarray(at, at + 32);
}

/** The canonical text: stored bytes for a version-1 record, expanded for a compressed one. */
export function recordCanonical(record: Uint8Array): Uint8Array {
  return storedText(record[0]!, record.subarray(NODES_AT + record[COUNT_AT]! * 32));
}

/** A stored text as the canonical text it holds (RangeError on bytes that are not one). */
function storedText(version: number, text: Uint8Array): Uint8Array {
  if (version === VERSION_PACKED) return unpackHex(expandText(text, RECORD_DICTIONARY_V3));
  return version === VERSION_LZ4 ? expandText(text) : text;
}

/** Whether the record's text is stored compressed (the stored form; recordCanonical reads either). */
export function isCompressedRecord(record: Uint8Array): boolean {
  return record[0] === VERSION_LZ4 || record[0] === VERSION_PACKED;
}

/** A compressed record as the version-1 record it was compacted from (verification reads a text's tail in place). */
export function plainRecord(record: Buffer): Buffer {
  if (!isCompressedRecord(record)) return record;
  const textAt = NODES_AT + record[COUNT_AT]! * 32;
  return withText(record, textAt, VERSION, storedText(record[0]!, record.subarray(textAt)));
}

/**
 * The record to store when compression is on: the same header, version 3, the text packed and compressed (version 2,
 * compressed only, where it cannot be packed). A record whose text is short or does not shrink stays as it is
 * (version 1).
 */
export function compactRecord(record: Buffer, textAt: number): Buffer {
  if (record.length - textAt < COMPRESS_FROM_BYTES) return record;
  const text = record.subarray(textAt);
  const packed = packHex(text);
  const block = packed === null ? compressText(text) : compressText(packed, RECORD_DICTIONARY_V3);
  if (block.length >= record.length - textAt) return record;
  return withText(record, textAt, packed === null ? VERSION_LZ4 : VERSION_PACKED, block);
}

/** The record's header (hash, Merkle roots) under another version byte, followed by `text`. */
function withText(record: Buffer, textAt: number, version: number, text: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(textAt + text.length);
  record.copy(out, 0, 0, textAt);
  out[0] = version;
  out.set(text, textAt);
  return out;
}

/** Number of trailing zero bits of seq: how many subtrees its leaf completes. */
export function completedLevels(seq: number): number {
  let m = 0;
  while (seq % 2 === 0 && seq > 0) {
    seq /= 2;
    m++;
  }
  return m;
}

/**
 * Allocates a record for an entry of `seq` and writes its canonical text (prefix bytes + tail) in place; the hash and
 * subtree roots are filled in by `sealRecord` once computed from that text. Returns the record and where the text starts.
 */
export function draftRecord(seq: number, prefix: Buffer, tail: string): { record: Buffer; textAt: number } {
  const m = completedLevels(seq);
  const textAt = NODES_AT + m * 32;
  const record = Buffer.allocUnsafe(textAt + prefix.length + Buffer.byteLength(tail));
  record[0] = VERSION;
  record[COUNT_AT] = m;
  prefix.copy(record, textAt);
  record.write(tail, textAt + prefix.length, 'utf8');
  return { record, textAt };
}

export function sealRecord(record: Buffer, hash: Uint8Array, nodes: readonly Uint8Array[]): void {
  if (nodes.length !== record[COUNT_AT]) throw new RangeError('subtree roots do not match the record');
  record.set(hash, HASH_AT);
  for (let i = 0; i < nodes.length; i++) record.set(nodes[i]!, NODES_AT + i * 32);
}
