import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';

export type { Database, RootDatabase };

/**
 * Opens (creating if needed) a service's LMDB environment under DATA_DIR: one environment per service
 * (docs/decisions.md), sub-databases by name inside it.
 */
export function openStore(dataDir: string, service: string, options: { maxDbs?: number; mapSize?: number } = {}): RootDatabase {
  const path = join(dataDir, service);
  mkdirSync(path, { recursive: true, mode: 0o700 });
  return open({
    path,
    maxDbs: options.maxDbs ?? 32,
    // lmdb-js grows the map on demand; this is only the starting size.
    mapSize: options.mapSize ?? 64 * 1024 * 1024,
    // Values are msgpack (lmdb-js default): fast and compact; ledger entries keep their own canonical bytes.
    compression: false,
  });
}
