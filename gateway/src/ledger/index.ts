// The events ledger's public surface: the HTTP routes (POST/GET /v1/events, batch, verify, proofs) and the CLI
// (`aduana ledger verify|export`) build on these.
import type { Ledger } from './ledger.js';
import type { ThreadedLedger } from '../governance/writer/threaded-ledger.js';

export { Ledger, type CommitWindow, type LedgerOptions, type ListQuery, type ListPage, type LedgerHead, type InclusionProof, type ConsistencyProof } from './ledger.js';
export type { LedgerInput, LedgerEntry } from './log/entry-input.js';
export { LedgerError, type LedgerErrorCode } from './errors.js';
export type { VerifyReport } from './lifecycle/verify-chain.js';
export {
  verifyCheckpointSignature,
  checkpointSigningInput,
  SIGNING_KEY_FILE,
  type Checkpoint,
  type LedgerPublicKey,
  type AnchoredCheckpoint,
  type AnchorState,
  type CheckpointAnchor,
} from './merkle/checkpoint.js';
export type { AnchorOptions, AnchorStats } from './merkle/anchor-queue.js';
export { EXPORT_FORMAT, type ExportHeader } from './lifecycle/export-jsonl.js';
export { GENESIS_PREV_HASH, sha256Bytes } from './log/hash.js';
export { verifyInclusion, verifyConsistency } from './merkle/proofs.js';
export { isValidName as isValidLedgerName, MAX_NAME_LENGTH } from './log/entry-input.js';
// How the entries database is opened and a record's text read, for tools that read a data directory (bench:ledger-disk).
export { ENTRIES_DB_OPTIONS } from './storage/store.js';
export { recordCanonical } from './log/record-codec.js';
export { LedgerRetention, type RetentionOptions } from './lifecycle/retention.js';
export type { PruneLimits, PruneResult } from './lifecycle/prune.js';
export type { PruneBoundary } from './lifecycle/boundary.js';
export { LedgerBase } from './ledger-base.js';

/** The ledger wherever its writes are made: in the calling thread (Ledger) or by the writer thread (ThreadedLedger, the gateway's). */
export type EventsLedger = Ledger | ThreadedLedger;
