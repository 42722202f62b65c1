import type { Database, Key, RootDatabase } from 'lmdb';
import { encodeRecord, recordCanonical, recordHash, recordNode, recordNodeCount } from '../../../src/ledger/log/record-codec.js';
import { COMPRESS_FROM_BYTES } from '../../../src/ledger/log/record-dictionary.js';
import { ENTRIES_DB_OPTIONS } from '../../../src/ledger/storage/store.js';

/**
 * The ledger's entries database opened directly, as the ledger opens it (records lmdb-js compressed, as earlier builds
 * stored them, are expanded on the way out): how the tamper tests change LMDB behind the API's back.
 */
export function rawEntries(root: RootDatabase): Database<Buffer, Key> {
  return root.openDB<Buffer, Key>({ ...ENTRIES_DB_OPTIONS, compression: { ...ENTRIES_DB_OPTIONS.compression } });
}

/** The entries database as builds before the writer compressed records opened it with compression on: lmdb-js compresses every put. */
export function lmdbCompressedEntries(root: RootDatabase): Database<Buffer, Key> {
  return root.openDB<Buffer, Key>({ ...ENTRIES_DB_OPTIONS, compression: { ...ENTRIES_DB_OPTIONS.compression, threshold: COMPRESS_FROM_BYTES } });
}

/** The entries database without decompression: the bytes exactly as LMDB stores them. */
export function storedEntries(root: RootDatabase): Database<Buffer, Key> {
  return root.openDB<Buffer, Key>({ name: 'ledger_entries', encoding: 'binary' });
}

/** Rewrites the canonical text of a record, keeping its stored hash and Merkle roots (a naive edit). */
export function editCanonical(record: Buffer, edit: (canonical: string) => string): Buffer {
  const canonical = Buffer.from(recordCanonical(record)).toString('utf8');
  const nodes = Array.from({ length: recordNodeCount(record) }, (_, i) => recordNode(record, i + 1));
  return encodeRecord(recordHash(record), nodes, edit(canonical));
}
