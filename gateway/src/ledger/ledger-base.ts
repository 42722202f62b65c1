// Over 300 lines on purpose: the ledger's public facade whoever writes (appends, every read, export and prune
// coordination), each method a few lines delegating to the store or to the subclass that writes.
import { X509Certificate } from 'node:crypto';
import type { RootDatabase } from 'lmdb';
import { CheckpointSigner, type AnchorState, type Checkpoint, type LedgerPublicKey } from './merkle/checkpoint.js';
import { chainedEntry, isValidName, prepareText, type ChainLink, type LedgerEntry, type LedgerInput, type PreparedText } from './log/entry-input.js';
import { isoTime } from '@aduana/shared/core';
import { LedgerError } from './errors.js';
import { exportTenantJsonl, type ExportWrites } from './lifecycle/export-jsonl.js';
import { exportedThrough } from './lifecycle/export-mark.js';
import { listEntries } from './log/list-entries.js';
import { AppendsInFlight } from './log/appends-in-flight.js';
import type { PruneLimits, PruneResult } from './lifecycle/prune.js';
import { GENESIS_PREV_HASH } from './log/hash.js';
import type { ConsistencyProof, InclusionProof, LedgerHead, ListPage, ListQuery } from './ledger-types.js';
import { consistencyPath, inclusionPath, rangeHash } from './merkle/merkle.js';
import { recordHash } from './log/record-codec.js';
import {
  anchorState,
  committedSize,
  decodeEntry,
  lastRecord,
  latestCheckpoint,
  listCheckpoints,
  MAX_SEQ,
  openLedgerDbs,
  prunedThrough,
  readRecord,
  subtreeReader,
  type LedgerDbs,
} from './storage/store.js';
import { verifyChain, type VerifyReport } from './lifecycle/verify-chain.js';

export interface LedgerBaseOptions {
  /** Directory of the Ed25519 checkpoint key (DATA_DIR); the key file is created there with mode 0600. */
  keyDir: string;
  /** PEM of the TSA certificate that tokens must be signed by, or by a certificate it issued (ANCHOR_TSA_CERT); verify() checks it too. */
  tsaCertPem?: string | null;
  /** Clock for created_at defaults and checkpoint timestamps (tests). */
  now?: () => Date;
  /** verify() hashes records and rebuilds the Merkle tree on a worker thread for chains this long (default 16,384). */
  verifyWorkerThreshold?: number;
  /** Largest canonical entry, bytes (default 1 MiB). */
  maxEntryBytes?: number;
}

/** Which queue an append joins: the next event-loop turn's (`append`) or the group-commit window's (`appendGrouped`). */
export type CommitWindow = 'turn' | 'group';

const MAX_LIST_LIMIT = 10_000;

/**
 * The ledger's API whoever writes: appends validated and canonicalised here, synchronously, then handed to `chain`;
 * the reads (list, get, head, proofs, checkpoints, verify, export) over the committed state in LMDB. The two
 * subclasses differ in who writes: `Ledger` writes from the calling thread (the CLI, tools, unit tests, a gateway on
 * one core), `ThreadedLedger` hands every write to the process's one writer thread. Reads see only committed entries
 * either way, so they run wherever the caller is.
 */
export abstract class LedgerBase {
  protected readonly dbs: LedgerDbs;
  protected readonly signer: CheckpointSigner;
  protected readonly now: () => Date;
  /** The TSA certificate time-stamps must chain to (ANCHOR_TSA_CERT), or null. */
  protected readonly tsaCertificate: X509Certificate | null;
  readonly #verifyWorkerThreshold: number | undefined;
  readonly #maxEntryBytes: number;
  #closed = false;
  /** Exports in progress per tenant: retention leaves such a tenant alone until they finish. */
  readonly #exporting = new Map<string, number>();
  /** The prune in progress (one at a time); close() waits for it. */
  #pruning: Promise<PruneResult> | null = null;
  /** Appends made through this object and not yet answered, per tenant (caughtUp). */
  protected readonly inFlight = new AppendsInFlight();

  protected constructor(root: RootDatabase, options: LedgerBaseOptions) {
    this.now = options.now ?? (() => new Date());
    this.dbs = openLedgerDbs(root);
    this.signer = CheckpointSigner.load(options.keyDir);
    this.tsaCertificate = options.tsaCertPem ? new X509Certificate(options.tsaCertPem) : null;
    this.#verifyWorkerThreshold = options.verifyWorkerThreshold;
    this.#maxEntryBytes = options.maxEntryBytes ?? 1024 * 1024;
  }

  /** Chains validated inputs in the window's queue; resolves with where each landed once flushed. */
  protected abstract chain(tenantId: string, inputs: PreparedText[], window: CommitWindow): Promise<ChainLink[]>;
  /** Where an export's checkpoint and mark are written. */
  protected abstract get exportWrites(): ExportWrites;
  /** Runs one prune (the caller has serialised it against exports and other prunes). */
  protected abstract runPrune(tenantId: string, limits: PruneLimits): Promise<PruneResult>;

  /**
   * Appends a batch atomically (all entries or none) and resolves once it is flushed to disk. Invalid input rejects
   * with LedgerError('invalid_input', index) before anything is assigned. Concurrent calls share LMDB transactions
   * and flushes (group commit), so callers need not batch for throughput.
   */
  async append(tenantId: string, inputs: readonly LedgerInput[]): Promise<LedgerEntry[]> {
    this.checkOpen();
    checkTenant(tenantId);
    if (!Array.isArray(inputs) || inputs.length === 0) throw new LedgerError('invalid_input', 'a batch holds at least one event');
    const now = isoTime(this.now().getTime());
    const prepared = inputs.map((input, i) => prepareText(input, i, now, this.#maxEntryBytes));
    const links = await this.inFlight.track(tenantId, this.chain(tenantId, prepared, 'turn'));
    return links.map((link, i) => chainedEntry(prepared[i]!.fields, tenantId, link));
  }

  /**
   * For the proxy and decisions: the entry joins its tenant's group, which is committed as one batch within
   * `groupCommitMs`; resolves once flushed. A bad input rejects alone, before joining the group.
   */
  appendGrouped(tenantId: string, input: LedgerInput): Promise<LedgerEntry> {
    try {
      return this.enqueueGrouped(tenantId, input);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * appendGrouped, but a bad input (too large, bad name), a closed ledger or a failed or overrun writer thread throws
   * here, synchronously, before the entry joins a group: a caller that must not answer without its entry checks it
   * before answering.
   */
  enqueueGrouped(tenantId: string, input: LedgerInput): Promise<LedgerEntry> {
    this.checkOpen();
    checkTenant(tenantId);
    const prepared = prepareText(input, 0, isoTime(this.now().getTime()), this.#maxEntryBytes);
    return this.inFlight.track(tenantId, this.chain(tenantId, [prepared], 'group')).then((links) => chainedEntry(prepared.fields, tenantId, links[0]!));
  }

  /** Throws LedgerError('closed') once the ledger is closed. */
  protected checkOpen(): void {
    if (this.#closed) throw new LedgerError('closed', 'the ledger is closed');
  }

  /** Marks the ledger closed; false when it already was (close() then has nothing to do). */
  protected markClosed(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    return true;
  }

  /**
   * Resolves once every append of the tenant made through this object before the call was answered (or failed):
   * a read after it sees them. The HTTP reads of the ledger wait for it (docs/ledger.md, "Reading what was just written").
   */
  caughtUp(tenantId: string): Promise<void> {
    return this.inFlight.settled(tenantId);
  }

  /** Whether appends can be made: false once the thread that writes has failed (the health check says so). */
  get writable(): boolean {
    return true;
  }

  get publicKey(): LedgerPublicKey {
    return this.signer.publicKey;
  }

  list(tenantId: string, query: ListQuery): ListPage {
    checkTenant(tenantId);
    const { limit } = query;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) throw new LedgerError('invalid_query', `limit must be an integer in 1..${MAX_LIST_LIMIT}`);
    const order = query.order ?? 'asc';
    if (order !== 'asc' && order !== 'desc') throw new LedgerError('invalid_query', 'order must be asc or desc');
    const agentId = query.agentId ?? null;
    const eventType = query.eventType ?? null;
    if (agentId !== null && !isValidName(agentId)) throw new LedgerError('invalid_query', 'agentId is not a valid agent id');
    if (eventType !== null && !isValidName(eventType)) throw new LedgerError('invalid_query', 'event_type is not a valid event type');
    return listEntries(this.dbs, tenantId, { limit, order, agentId, eventType, cursor: query.cursor ?? null });
  }

  /** The entry, or undefined; LedgerError('pruned') for a seq retention removed. */
  get(tenantId: string, seq: number): LedgerEntry | undefined {
    checkTenant(tenantId);
    if (!Number.isSafeInteger(seq) || seq < 1) return undefined;
    this.#checkNotPruned(tenantId, seq, `entry ${seq}`);
    const record = readRecord(this.dbs, tenantId, seq);
    return record ? decodeEntry(record) : undefined;
  }

  /** Tenants with at least one entry, in key order (for `aduana ledger verify` without --tenant): one read per tenant. */
  tenants(): string[] {
    const out: string[] = [];
    let start: [string, number] | undefined;
    for (;;) {
      let key: [string, number] | undefined;
      for (const k of this.dbs.entries.getKeys({ ...(start ? { start } : {}), limit: 1 })) key = k as [string, number];
      if (key === undefined || (start !== undefined && key[0] === start[0])) return out;
      out.push(key[0]);
      start = [key[0], MAX_SEQ]; // skip the rest of this tenant's keys
    }
  }

  /** The committed head (what readers can see), not counting batches still being written. */
  head(tenantId: string): LedgerHead {
    checkTenant(tenantId);
    const last = lastRecord(this.dbs, tenantId);
    return last ? { size: last.seq, hash: Buffer.from(recordHash(last.record)).toString('hex') } : { size: 0, hash: GENESIS_PREV_HASH };
  }

  /** Recomputes the chain, the Merkle tree and every checkpoint; yields to the event loop as it goes. */
  verify(tenantId: string): Promise<VerifyReport> {
    checkTenant(tenantId);
    return verifyChain(this.dbs, tenantId, this.signer.publicKey, { workerThreshold: this.#verifyWorkerThreshold, tsaCert: this.tsaCertificate });
  }

  /** Merkle root of the first `treeSize` committed entries (default: all). */
  rootAt(tenantId: string, treeSize?: number): string {
    checkTenant(tenantId);
    const size = this.#checkSize(tenantId, treeSize ?? committedSize(this.dbs, tenantId), 0);
    if (size > 0) this.#checkNotPruned(tenantId, size + 1, `the root of tree size ${size}`);
    return Buffer.from(rangeHash(subtreeReader(this.dbs, tenantId), 0, size)).toString('hex');
  }

  inclusionProof(tenantId: string, seq: number, treeSize?: number): InclusionProof {
    checkTenant(tenantId);
    const size = this.#checkSize(tenantId, treeSize ?? committedSize(this.dbs, tenantId), 1);
    if (!Number.isSafeInteger(seq) || seq < 1 || seq > size) throw new LedgerError('out_of_range', `seq ${seq} is not in the tree of size ${size}`);
    this.#checkNotPruned(tenantId, seq, `an inclusion proof of entry ${seq}`);
    const read = subtreeReader(this.dbs, tenantId);
    const record = readRecord(this.dbs, tenantId, seq)!;
    return {
      tenant_id: tenantId,
      seq,
      leaf_index: seq - 1,
      tree_size: size,
      entry_hash: Buffer.from(recordHash(record)).toString('hex'),
      root_hash: Buffer.from(rangeHash(read, 0, size)).toString('hex'),
      audit_path: inclusionPath(read, seq - 1, size).map(hex),
    };
  }

  consistencyProof(tenantId: string, fromSize: number, toSize?: number): ConsistencyProof {
    checkTenant(tenantId);
    const to = this.#checkSize(tenantId, toSize ?? committedSize(this.dbs, tenantId), 1);
    if (!Number.isSafeInteger(fromSize) || fromSize < 1 || fromSize > to) throw new LedgerError('out_of_range', `from size must be in 1..${to}`);
    this.#checkNotPruned(tenantId, fromSize + 1, `a consistency proof from tree size ${fromSize}`);
    const read = subtreeReader(this.dbs, tenantId);
    return {
      tenant_id: tenantId,
      from_size: fromSize,
      to_size: to,
      from_root: hex(rangeHash(read, 0, fromSize)),
      to_root: hex(rangeHash(read, 0, to)),
      proof: consistencyPath(read, fromSize, to).map(hex),
    };
  }

  /** Stored checkpoints in tree_size order, from `fromSize` on. */
  checkpoints(tenantId: string, options: { fromSize?: number; limit?: number } = {}): Checkpoint[] {
    checkTenant(tenantId);
    return listCheckpoints(this.dbs, tenantId, options.fromSize ?? 0, options.limit ?? 1000);
  }

  latestCheckpoint(tenantId: string): Checkpoint | null {
    checkTenant(tenantId);
    return latestCheckpoint(this.dbs, tenantId) ?? null;
  }

  /** The checkpoint's RFC 3161 time-stamp, or that it waits for one; null when it was never queued for the TSA. */
  anchorOf(tenantId: string, treeSize: number): AnchorState | null {
    checkTenant(tenantId);
    return anchorState(this.dbs, tenantId, treeSize);
  }

  /**
   * A checkpoint for exactly `size` committed entries, signed now and neither stored nor time-stamped: what a
   * sidecar's shipped batch ends in when no stored checkpoint covers its last entry (docs/fleet.md, "Shipping the
   * ledger"). The stored checkpoints keep their own cadence (CHECKPOINT_EVERY, CHECKPOINT_INTERVAL_S).
   */
  signCheckpoint(tenantId: string, size: number): Checkpoint {
    const root = this.rootAt(tenantId, size);
    return this.signer.sign({ tenant_id: tenantId, tree_size: size, root_hash: root, timestamp: this.now().toISOString() });
  }

  /**
   * JSONL: a header line (format, tenant, size, public key, every checkpoint up to the exported size, the last signed
   * for exactly that size), then one line per entry (canonical JSON with `hash`). Returns the entries written.
   * scripts/verify-ledger-export.mjs verifies the file offline.
   */
  async exportJsonl(tenantId: string, out: NodeJS.WritableStream): Promise<number> {
    checkTenant(tenantId);
    this.#exporting.set(tenantId, (this.#exporting.get(tenantId) ?? 0) + 1);
    try {
      // A prune already running finishes first, so the export starts from a boundary that stays put.
      while (this.#pruning) await this.#pruning.catch(() => {});
      return await exportTenantJsonl(this.dbs, tenantId, out, this.signer.publicKey, this.exportWrites);
    } finally {
      const n = this.#exporting.get(tenantId)! - 1;
      if (n === 0) this.#exporting.delete(tenantId);
      else this.#exporting.set(tenantId, n);
    }
  }

  /** Seq through which a complete export was written (0 = never): retention's release mark outside fleet mode. */
  exportedThrough(tenantId: string): number {
    checkTenant(tenantId);
    return exportedThrough(this.dbs, tenantId);
  }

  /** Entries 1..prunedThrough were removed by retention (0 = none). */
  prunedThrough(tenantId: string): number {
    checkTenant(tenantId);
    return prunedThrough(this.dbs, tenantId);
  }

  /**
   * Retention (docs/ledger.md, "Retention"): removes the tenant's oldest entries, only through a signed checkpoint,
   * at most `releasedThrough`, and only entries created before `before`; re-verifies them first and leaves a signed
   * boundary that verify and proofs start from. Runs in chunks that yield to the event loop; one prune at a time,
   * and none while the tenant is being exported (resolves with nothing removed).
   */
  async prune(tenantId: string, limits: PruneLimits): Promise<PruneResult> {
    this.checkOpen();
    checkTenant(tenantId);
    while (this.#pruning) await this.#pruning.catch(() => {});
    if (this.#exporting.has(tenantId)) return { tenant_id: tenantId, pruned_through: prunedThrough(this.dbs, tenantId), removed: 0 };
    const run = this.runPrune(tenantId, limits);
    this.#pruning = run;
    try {
      return await run;
    } finally {
      this.#pruning = null;
    }
  }

  /** Resolves once no prune is running (close waits for it). */
  protected async pruneSettled(): Promise<void> {
    await this.#pruning?.catch(() => {});
  }

  /** Throws LedgerError('pruned') when `seq` is at or below the tenant's pruning boundary. */
  #checkNotPruned(tenantId: string, seq: number, what: string): void {
    const pruned = prunedThrough(this.dbs, tenantId);
    if (seq <= pruned) throw new LedgerError('pruned', `${what} needs entries that retention pruned (entries 1..${pruned} are gone)`);
  }

  #checkSize(tenantId: string, size: number, min: number): number {
    const committed = committedSize(this.dbs, tenantId);
    if (!Number.isSafeInteger(size) || size < min || size > committed) throw new LedgerError('out_of_range', `tree size must be in ${min}..${committed}`);
    return size;
  }
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

export function checkTenant(tenantId: string): void {
  if (!isValidName(tenantId)) throw new LedgerError('invalid_tenant', 'tenant id must be a non-empty string of at most 256 UTF-8 bytes without control characters');
}
