import { statSync } from 'node:fs';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { ENTRIES_DB_OPTIONS, recordCanonical } from '@aduana/gateway/ledger';

/** What each named database of the gateway's LMDB environment holds, and the pages it takes. */
export interface DbUsage {
  name: string;
  entries: number;
  keyBytes: number;
  valueBytes: number;
  /** Branch + leaf + overflow pages, times the page size: the bytes this database occupies in data.mdb. */
  pageBytes: number;
}

/** One ledger record's parts, summed over the records of one event type (record-codec.ts). */
export interface LedgerKindUsage {
  eventType: string;
  records: number;
  /** Version byte, raw SHA-256 and the subtree count: 34 bytes a record. */
  headerBytes: number;
  /** Merkle subtree roots stored in the leaf's record (32 bytes per completed level). */
  merkleBytes: number;
  /** The canonical JSON text that was hashed. */
  canonicalBytes: number;
  /** The record's bytes as LMDB holds them (compressed when the format compresses). */
  storedBytes: number;
  keyBytes: number;
}

export interface DataDirReport {
  dataMdbBytes: number;
  /** Pages in use (last page number + 1, times the page size): data.mdb without its unused tail. */
  usedBytes: number;
  ledgerEntries: number;
  dbs: DbUsage[];
  ledgerKinds: LedgerKindUsage[];
}

interface DbStats {
  pageSize: number;
  treeBranchPageCount: number;
  treeLeafPageCount: number;
  overflowPages: number;
  entryCount: number;
}

// The gateway's named databases (gateway-store.ts, ledger/storage/store.ts and the stores opened beside them).
const NAMES = ['ledger_entries', 'ledger_index', 'ledger_counts', 'ledger_checkpoints', 'decisions', 'metrics', 'counters', 'tenants', 'tokens', 'token_ids', 'policies', 'users', 'agents', 'stored_responses', 'request_samples'];

const HEADER = 34;

function eventTypeOf(canonical: Uint8Array): string {
  // Canonical JSON orders keys, so "event_type" appears once at the top level before "metadata"; a light scan is enough.
  const text = Buffer.from(canonical).toString('utf8');
  const m = /"event_type":"([^"]*)"/.exec(text);
  return m ? (m[1] as string) : '?';
}

/** Reads DATA_DIR/gateway (read-only; the gateway must be stopped or may keep running) and reports where bytes go. */
export function reportDataDir(dataDir: string): DataDirReport {
  const path = join(dataDir, 'gateway');
  const root: RootDatabase = open({ path, readOnly: true, maxDbs: 48 });
  try {
    const dbs: DbUsage[] = [];
    const kinds = new Map<string, LedgerKindUsage>();
    let ledgerEntries = 0;
    const expanded = root.openDB<Buffer>({ ...ENTRIES_DB_OPTIONS, compression: { ...ENTRIES_DB_OPTIONS.compression } });
    for (const name of NAMES) {
      let db;
      try {
        db = root.openDB({ name, encoding: 'binary', keyEncoding: 'binary' });
      } catch {
        continue;
      }
      if (!db) continue;
      const stats = db.getStats() as DbStats;
      let keyBytes = 0;
      let valueBytes = 0;
      let entries = 0;
      for (const { key, value } of db.getRange({})) {
        const k = key as unknown as Buffer;
        const v = value as Buffer;
        entries++;
        keyBytes += k.length;
        valueBytes += v.length;
        if (name === 'ledger_entries') {
          ledgerEntries++;
          const record = expanded.get(k) as Buffer;
          const m = record[33] ?? 0;
          const canonical = recordCanonical(record);
          const type = eventTypeOf(canonical);
          let u = kinds.get(type);
          if (!u) kinds.set(type, (u = { eventType: type, records: 0, headerBytes: 0, merkleBytes: 0, canonicalBytes: 0, storedBytes: 0, keyBytes: 0 }));
          u.records++;
          u.headerBytes += HEADER;
          u.merkleBytes += 32 * m;
          u.canonicalBytes += canonical.length;
          u.storedBytes += v.length;
          u.keyBytes += k.length;
        }
      }
      dbs.push({ name, entries, keyBytes, valueBytes, pageBytes: (stats.treeBranchPageCount + stats.treeLeafPageCount + stats.overflowPages) * stats.pageSize });
    }
    const env = root.getStats() as { pageSize: number; lastPageNumber: number };
    return {
      dataMdbBytes: statSync(join(path, 'data.mdb')).size,
      usedBytes: (env.lastPageNumber + 1) * env.pageSize,
      ledgerEntries,
      dbs,
      ledgerKinds: [...kinds.values()],
    };
  } finally {
    void root.close();
  }
}
