// The dependency-light part of @aduana/shared: canonical JSON and hashing, time, opening LMDB. A worker thread that
// must start small (the gateway's ledger writer) imports this rather than the index, whose logger, schema validator
// and HTTP client it does not use; the index re-exports all of it.
export { canonicalJson, sha256Hex } from './hashing/canonical-json.js';
export { isoTime } from './time/iso-time.js';
export { backoffMs, type BackoffOptions } from './time/backoff.js';
export { openStore, type Database, type RootDatabase } from './storage/open-store.js';
