import { createRequire } from 'node:module';
import type * as Lz4Module from 'lz4-napi';
import { RECORD_DICTIONARY } from './record-dictionary.js';

type Lz4 = typeof Lz4Module;
let lz4: Lz4 | null = null;

/** Loaded on first use: a process that never meets a compressed record saves the ~4.5 MiB of resident memory it costs. */
function codec(): Lz4 {
  lz4 ??= createRequire(import.meta.url)('lz4-napi') as Lz4;
  return lz4;
}

/**
 * LZ4 (lz4_flex's block format, its uncompressed size first as 4 bytes little-endian) with the fixed record
 * dictionary, done synchronously in the writer: ~6 µs for a proxied call's ~860 B of canonical text on the
 * project's machine, where lmdb-js's own compression costs ~20 µs of CPU per put (a thread-pool hand-off each).
 */
export function compressText(text: Buffer, dictionary: Buffer = RECORD_DICTIONARY): Buffer {
  return codec().compressSync(text, dictionary);
}

/** LZ4 expands at most 255-fold (plus what the dictionary supplies): a larger stated size is damage, not data. */
const MAX_RATIO = 255;

/**
 * The text of a compressed record, with the dictionary it was compressed with; throws RangeError on bytes that are not
 * one (storage damage or tampering).
 */
export function expandText(block: Uint8Array, dictionary: Buffer = RECORD_DICTIONARY): Buffer {
  if (block.length < 4) throw new RangeError('not a compressed ledger record');
  const size = (block[0]! | (block[1]! << 8) | (block[2]! << 16)) + block[3]! * 2 ** 24;
  if (size > block.length * MAX_RATIO + dictionary.length) throw new RangeError('not a compressed ledger record');
  let text: Buffer;
  try {
    text = codec().uncompressSync(block, dictionary);
  } catch (err) {
    throw new RangeError('not a compressed ledger record', { cause: err });
  }
  if (text.length !== size) throw new RangeError('not a compressed ledger record');
  return text;
}
