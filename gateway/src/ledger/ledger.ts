import { IF_EXISTS, type RootDatabase } from 'lmdb';
import { AnchorQueue, type AnchorOptions, type AnchorStats } from './anchor-queue.js';
import { CheckpointSigner, type Checkpoint, type LedgerPublicKey } from './checkpoint.js';
import { CommitQueue, type QueuedBatch } from './commit-queue.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { chainTail, isValidName, prepareInput, type LedgerEntry, type LedgerInput, type PreparedInput } from './entry-input.js';
import { LedgerError } from './errors.js';
import { exportTenantJsonl } from './export-jsonl.js';
import { entryHashOfBytes, GENESIS_PREV_HASH, leafHash } from './hash.js';
import { consistencyPath, inclusionPath, pushLeaf, rangeHash } from './merkle.js';
import { draftRecord, recordHash, sealRecord } from './record-codec.js';
import {
  committedSize,
  decodeEntry,
  EMPTY,
  lastRecord,
  latestCheckpoint,
  listCheckpoints,
  MAX_SEQ,
  openLedgerDbs,
  readRecord,
  subtreeReader,
  type LedgerDbs,
} from './store.js';
import { countersFor, TenantState, type CounterBump } from './tenant-state.js';
import { verifyChain, type VerifyReport } from './verify-chain.js';

export interface LedgerOptions {
  /** Directory of the Ed25519 checkpoint key (DATA_DIR); the key file is created there with mode 0600. */
  keyDir: string;
  /** Signed checkpoint once this many entries are durable past the last one (default 1,000). */
  checkpointEvery?: number;
  /** …and at least this often when new entries exist (default 60 s). */
  checkpointIntervalMs?: number;
  /** appendGrouped: window within which entries are group-committed (default 5 ms). */
  groupCommitMs?: number;
  /** appendGrouped: a group this large is committed without waiting for the window (default 1,000). */
  maxGroupSize?: number;
  /** Largest canonical entry, bytes (default 1 MiB). */
  maxEntryBytes?: number;
  /** Each checkpoint is POSTed here in the background (ANCHOR_URL); empty/undefined = off. */
  anchorUrl?: string | null;
  anchor?: AnchorOptions;
  /** Clock for created_at defaults and checkpoint timestamps (tests). */
  now?: () => Date;
  /** verify() rebuilds the Merkle tree on a worker thread for chains at least this long (default 16,384). */
  verifyWorkerThreshold?: number;
  /** Background failures (checkpoint writes, anchoring): never thrown, reported here. */
  onError?: (err: unknown, context: string) => void;
}

export interface ListQuery {
  /** 1..10,000 */
  limit: number;
  cursor?: string | null;
  /** Only entries whose metadata.agent_id equals this. */
  agentId?: string | null;
  eventType?: string | null;
  /** By seq; default 'asc' (oldest first). */
  order?: 'asc' | 'desc';
}

export interface ListPage {
  events: LedgerEntry[];
  /** Opaque; null on the last page. */
  cursor: string | null;
  /** Entries matching the filters, from per-tenant counters (no scan). */
  total: number;
}

export interface LedgerHead {
  size: number;
  /** Hash of the last entry; 64 zeros when the chain is empty. */
  hash: string;
}

/** RFC 9162 inclusion proof of entry `seq` (leaf seq - 1) in the tree of the first `tree_size` entries. */
export interface InclusionProof {
  tenant_id: string;
  seq: number;
  leaf_index: number;
  tree_size: number;
  /** The entry's hash: the leaf data (the leaf hash is SHA-256(0x00 ‖ these 32 bytes)). */
  entry_hash: string;
  /** Root the path leads to; trust it only once it equals a signed checkpoint's root_hash for tree_size. */
  root_hash: string;
  audit_path: string[];
}

/** RFC 9162 consistency proof: the tree of `to_size` entries extends the tree of `from_size` entries. */
export interface ConsistencyProof {
  tenant_id: string;
  from_size: number;
  to_size: number;
  from_root: string;
  to_root: string;
  proof: string[];
}

const MAX_LIST_LIMIT = 10_000;

/** A promise for the flush of the transaction the writes just issued belong to (lmdb-js: resolved put = committed only). */
function flushOfCurrentTxn(root: RootDatabase): Promise<unknown> {
  // `root.flushed` is a thenable that looks up the *current* transaction's flush promise when `then` is called, so
  // it is called synchronously, right after the puts; awaited later it could wait for a later transaction.
  return new Promise((resolve, reject) => {
    root.flushed.then(resolve, reject);
  });
}

/**
 * The tamper-evident events ledger: one SHA-256 hash chain per tenant in LMDB, an RFC 9162 Merkle tree over it,
 * Ed25519-signed checkpoints. See docs/ledger.md for the hash definition, storage layout and durability design.
 */
export class Ledger {
  readonly #dbs: LedgerDbs;
  readonly #signer: CheckpointSigner;
  readonly #anchor: AnchorQueue | null;
  readonly #states = new Map<string, TenantState>();
  readonly #recovering = new Map<string, Promise<TenantState>>();
  /** append(): callers of one event-loop turn share a chain append. */
  readonly #turnQueue: CommitQueue;
  /** appendGrouped(): entries wait up to groupCommitMs for company. */
  readonly #groupQueue: CommitQueue;
  readonly #checkpointEvery: number;
  readonly #maxEntryBytes: number;
  readonly #now: () => Date;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #interval: NodeJS.Timeout;
  readonly #verifyWorkerThreshold: number | undefined;
  #closed = false;

  private constructor(root: RootDatabase, options: LedgerOptions) {
    this.#dbs = openLedgerDbs(root);
    this.#signer = CheckpointSigner.load(options.keyDir);
    this.#checkpointEvery = options.checkpointEvery ?? 1000;
    this.#turnQueue = new CommitQueue((tenantId, batches) => this.#commitQueued(tenantId, batches), 'turn', 10_000);
    this.#groupQueue = new CommitQueue((tenantId, batches) => this.#commitQueued(tenantId, batches), options.groupCommitMs ?? 5, options.maxGroupSize ?? 1000);
    this.#maxEntryBytes = options.maxEntryBytes ?? 1024 * 1024;
    this.#now = options.now ?? (() => new Date());
    this.#onError = options.onError ?? (() => {});
    this.#verifyWorkerThreshold = options.verifyWorkerThreshold;
    this.#anchor = options.anchorUrl
      ? new AnchorQueue(options.anchorUrl, { ...options.anchor, onError: (err) => this.#onError(err, 'anchor') })
      : null;
    this.#interval = setInterval(() => this.#checkpointDue(0), options.checkpointIntervalMs ?? 60_000);
    this.#interval.unref();
  }

  /** Opens the ledger's databases in `root` (the gateway's environment, from openStore) and loads the signing key. */
  static open(root: RootDatabase, options: LedgerOptions): Ledger {
    return new Ledger(root, options);
  }

  get publicKey(): LedgerPublicKey {
    return this.#signer.publicKey;
  }

  get anchorStats(): AnchorStats | null {
    return this.#anchor ? { ...this.#anchor.stats } : null;
  }

  /**
   * Appends a batch atomically (all entries or none) and resolves once it is flushed to disk. Invalid input rejects
   * with LedgerError('invalid_input', index) before anything is assigned. Concurrent calls share LMDB transactions
   * and flushes (group commit), so callers need not batch for throughput.
   */
  async append(tenantId: string, inputs: readonly LedgerInput[]): Promise<LedgerEntry[]> {
    this.#checkOpen();
    checkTenant(tenantId);
    if (!Array.isArray(inputs) || inputs.length === 0) throw new LedgerError('invalid_input', 'a batch holds at least one event');
    const now = this.#now().toISOString();
    const prepared = inputs.map((input, i) => prepareInput(input, i, now, this.#maxEntryBytes));
    return this.#turnQueue.add(tenantId, prepared);
  }

  /**
   * For the proxy and decisions: the entry joins its tenant's group, which is committed as one batch within
   * `groupCommitMs`; resolves once flushed. A bad input rejects alone, before joining the group.
   */
  appendGrouped(tenantId: string, input: LedgerInput): Promise<LedgerEntry> {
    try {
      this.#checkOpen();
      checkTenant(tenantId);
      const prepared = prepareInput(input, 0, this.#now().toISOString(), this.#maxEntryBytes);
      return this.#groupQueue.add(tenantId, [prepared]).then((entries) => entries[0]!);
    } catch (err) {
      return Promise.reject(err);
    }
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
    const after = query.cursor ? decodeCursor(query.cursor, order) : null;

    // The index holding exactly the filtered entries, and the counter that counts them.
    let prefix: string[] | null = null;
    if (agentId !== null && eventType !== null) prefix = [tenantId, 'at', agentId, eventType];
    else if (agentId !== null) prefix = [tenantId, 'a', agentId];
    else if (eventType !== null) prefix = [tenantId, 't', eventType];
    const total = prefix ? (this.#dbs.counts.get(prefix) ?? 0) : committedSize(this.#dbs, tenantId);

    const asc = order === 'asc';
    const range = (base: string[]) =>
      asc
        ? { start: [...base, (after ?? 0) + 1], end: [...base, MAX_SEQ], limit: limit + 1 }
        : { start: [...base, after !== null ? after - 1 : MAX_SEQ], end: [...base, 0], reverse: true, limit: limit + 1 };
    const events: LedgerEntry[] = [];
    if (prefix) {
      for (const key of this.#dbs.index.getKeys(range(prefix))) {
        const seq = (key as unknown[])[prefix.length] as number;
        const record = readRecord(this.#dbs, tenantId, seq);
        if (record) events.push(decodeEntry(record));
      }
    } else {
      for (const { value } of this.#dbs.entries.getRange(range([tenantId]))) events.push(decodeEntry(value));
    }
    const more = events.length > limit;
    if (more) events.length = limit;
    return { events, cursor: more ? encodeCursor(order, events[events.length - 1]!.seq) : null, total };
  }

  get(tenantId: string, seq: number): LedgerEntry | undefined {
    checkTenant(tenantId);
    if (!Number.isSafeInteger(seq) || seq < 1) return undefined;
    const record = readRecord(this.#dbs, tenantId, seq);
    return record ? decodeEntry(record) : undefined;
  }

  /** Tenants with at least one entry, in key order (for `aduana ledger verify` without --tenant): one read per tenant. */
  tenants(): string[] {
    const out: string[] = [];
    let start: [string, number] | undefined;
    for (;;) {
      let key: [string, number] | undefined;
      for (const k of this.#dbs.entries.getKeys({ ...(start ? { start } : {}), limit: 1 })) key = k as [string, number];
      if (key === undefined || (start !== undefined && key[0] === start[0])) return out;
      out.push(key[0]);
      start = [key[0], MAX_SEQ]; // skip the rest of this tenant's keys
    }
  }

  /** The committed head (what readers can see), not counting batches still being written. */
  head(tenantId: string): LedgerHead {
    checkTenant(tenantId);
    const last = lastRecord(this.#dbs, tenantId);
    return last ? { size: last.seq, hash: Buffer.from(recordHash(last.record)).toString('hex') } : { size: 0, hash: GENESIS_PREV_HASH };
  }

  /** Recomputes the chain, the Merkle tree and every checkpoint; yields to the event loop as it goes. */
  verify(tenantId: string): Promise<VerifyReport> {
    checkTenant(tenantId);
    return verifyChain(this.#dbs, tenantId, this.#signer.publicKey, { workerThreshold: this.#verifyWorkerThreshold });
  }

  /** Merkle root of the first `treeSize` committed entries (default: all). */
  rootAt(tenantId: string, treeSize?: number): string {
    checkTenant(tenantId);
    const size = this.#checkSize(tenantId, treeSize ?? committedSize(this.#dbs, tenantId), 0);
    return Buffer.from(rangeHash(subtreeReader(this.#dbs, tenantId), 0, size)).toString('hex');
  }

  inclusionProof(tenantId: string, seq: number, treeSize?: number): InclusionProof {
    checkTenant(tenantId);
    const size = this.#checkSize(tenantId, treeSize ?? committedSize(this.#dbs, tenantId), 1);
    if (!Number.isSafeInteger(seq) || seq < 1 || seq > size) throw new LedgerError('out_of_range', `seq ${seq} is not in the tree of size ${size}`);
    const read = subtreeReader(this.#dbs, tenantId);
    const record = readRecord(this.#dbs, tenantId, seq)!;
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
    const to = this.#checkSize(tenantId, toSize ?? committedSize(this.#dbs, tenantId), 1);
    if (!Number.isSafeInteger(fromSize) || fromSize < 1 || fromSize > to) throw new LedgerError('out_of_range', `from size must be in 1..${to}`);
    const read = subtreeReader(this.#dbs, tenantId);
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
    return listCheckpoints(this.#dbs, tenantId, options.fromSize ?? 0, options.limit ?? 1000);
  }

  latestCheckpoint(tenantId: string): Checkpoint | null {
    checkTenant(tenantId);
    return latestCheckpoint(this.#dbs, tenantId) ?? null;
  }

  /** Signs (and stores) a checkpoint at the current durable head now, if entries arrived since the last one. */
  checkpointNow(tenantId: string): Checkpoint | null {
    checkTenant(tenantId);
    const state = this.#healthyState(tenantId);
    return state ? this.#checkpoint(state, state.durableSize) : null;
  }

  /**
   * JSONL: a header line (format, tenant, size, public key, every checkpoint up to the exported size, the last signed
   * for exactly that size), then one line per entry (canonical JSON with `hash`). Returns the entries written.
   * scripts/verify-ledger-export.mjs verifies the file offline.
   */
  exportJsonl(tenantId: string, out: NodeJS.WritableStream): Promise<number> {
    checkTenant(tenantId);
    return exportTenantJsonl(this.#dbs, tenantId, out, this.#signer.publicKey, (size) => this.#checkpointForExport(tenantId, size));
  }

  /** Commits pending groups, waits for every write to be flushed, signs final checkpoints, stops anchoring. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#turnQueue.flushAll();
    this.#groupQueue.flushAll();
    this.#closed = true;
    clearInterval(this.#interval);
    for (const state of this.#states.values()) await Promise.allSettled([...state.inflight]);
    this.#checkpointDue(0);
    await flushOfCurrentTxn(this.#dbs.root);
    await this.#anchor?.close();
  }

  /** Test hook: resolves once queued checkpoints were sent (or given up). */
  async anchorIdle(): Promise<void> {
    await this.#anchor?.idle();
  }

  #checkOpen(): void {
    if (this.#closed) throw new LedgerError('closed', 'the ledger is closed');
  }

  #checkSize(tenantId: string, size: number, min: number): number {
    const committed = committedSize(this.#dbs, tenantId);
    if (!Number.isSafeInteger(size) || size < min || size > committed) throw new LedgerError('out_of_range', `tree size must be in ${min}..${committed}`);
    return size;
  }

  #healthyState(tenantId: string): TenantState | null {
    const state = this.#states.get(tenantId);
    if (state && !state.failed) return state;
    if (!state && !this.#recovering.has(tenantId)) {
      const loaded = TenantState.load(this.#dbs, tenantId);
      this.#states.set(tenantId, loaded);
      return loaded;
    }
    return null;
  }

  /** After a failed write: let the tenant's in-flight writes settle (they fail too: their predecessor is missing), then reload from disk. */
  #recover(tenantId: string): Promise<TenantState> {
    let pending = this.#recovering.get(tenantId);
    if (!pending) {
      const old = this.#states.get(tenantId);
      pending = (async () => {
        if (old) await Promise.allSettled([...old.inflight]);
        await this.#dbs.root.committed;
        const state = TenantState.load(this.#dbs, tenantId);
        this.#states.set(tenantId, state);
        this.#recovering.delete(tenantId);
        return state;
      })();
      this.#recovering.set(tenantId, pending);
    }
    return pending;
  }

  /** Assigns seq/prev_hash/hash synchronously from the in-memory head, issues one conditional LMDB batch, awaits its flush. */
  #commit(state: TenantState, prepared: readonly PreparedInput[]): Promise<LedgerEntry[]> {
    const { entries, index, counts } = this.#dbs;
    const tenantId = state.tenantId;
    const firstSeq = state.size + 1;
    const records: Buffer[] = [];
    const result: LedgerEntry[] = [];
    const groups = new Map<string, { input: PreparedInput; n: number }>();
    for (const input of prepared) {
      const seq = state.size + 1;
      const prevHash = state.headHash;
      const { record, textAt } = draftRecord(seq, input.prefix, chainTail(prevHash, seq, state.tenantJson));
      const hash = entryHashOfBytes(prevHash, record.subarray(textAt));
      sealRecord(record, hash, pushLeaf(state.peaks, leafHash(hash)));
      records.push(record);
      state.size = seq;
      state.headHash = hash.toString('hex');
      const group = groups.get(input.countKey);
      if (group) group.n++;
      else groups.set(input.countKey, { input, n: 1 });
      result.push({ ...input.fields, seq, tenant_id: tenantId, prev_hash: prevHash, hash: state.headHash });
    }
    // Counters move once per (agent, event_type) of the batch, not once per entry.
    const bumped = new Map<string, CounterBump>();
    for (const { input, n } of groups.values()) {
      for (const bump of countersFor(tenantId, input)) {
        state.counts.set(bump.id, (state.counts.get(bump.id) ?? counts.get(bump.key) ?? 0) + n);
        bumped.set(bump.id, bump);
      }
    }
    const size = state.size;
    const writeAll = (): void => {
      for (let i = 0; i < records.length; i++) {
        const seq = firstSeq + i;
        const input = prepared[i]!;
        entries.put([tenantId, seq], records[i]!);
        index.put([tenantId, 't', input.eventType, seq], EMPTY);
        if (input.agentId !== null) {
          index.put([tenantId, 'a', input.agentId, seq], EMPTY);
          index.put([tenantId, 'at', input.agentId, input.eventType, seq], EMPTY);
        }
      }
      for (const bump of bumped.values()) counts.put(bump.key, state.counts.get(bump.id)!);
      counts.put([tenantId, 'n'], size);
    };
    // Conditional on the predecessor being on disk: if an earlier batch failed, this one cannot leave a gap.
    let written: Promise<boolean>;
    try {
      written = firstSeq === 1 ? entries.ifNoExists([tenantId, 1], writeAll) : entries.ifVersion([tenantId, firstSeq - 1], IF_EXISTS, writeAll);
    } catch (err) {
      state.failed = true; // the head ran ahead of what was written: reload before the next append
      return Promise.reject(new LedgerError('write_failed', 'the ledger write failed', null, { cause: err }));
    }
    const flushed = flushOfCurrentTxn(this.#dbs.root);
    return this.#settle(state, written, flushed, size).then(() => result);
  }

  async #settle(state: TenantState, written: Promise<boolean>, flushed: Promise<unknown>, size: number): Promise<void> {
    const tracked = (async () => {
      let ok: boolean;
      try {
        ok = await written;
        if (ok) await flushed;
      } catch (err) {
        state.failed = true;
        throw new LedgerError('write_failed', 'the ledger write failed; nothing of this batch was stored', null, { cause: err });
      }
      if (!ok) {
        state.failed = true;
        throw new LedgerError('write_failed', 'an earlier ledger write failed; this batch was not stored');
      }
    })();
    state.inflight.add(tracked);
    try {
      await tracked;
    } finally {
      state.inflight.delete(tracked);
    }
    if (size > state.durableSize) state.durableSize = size;
    if (state.durableSize - state.lastCheckpointSize >= this.#checkpointEvery) this.#checkpoint(state, state.durableSize);
  }

  /** Commits queued batches of several callers as one append; each caller gets its own slice (or the shared failure). */
  #commitQueued(tenantId: string, batches: QueuedBatch[]): void {
    const run = async (): Promise<void> => {
      const state = this.#healthyState(tenantId) ?? (await this.#recover(tenantId));
      const entries = await this.#commit(state, batches.length === 1 ? batches[0]!.inputs : batches.flatMap((b) => b.inputs));
      let at = 0;
      for (const batch of batches) {
        batch.resolve(entries.slice(at, at + batch.inputs.length));
        at += batch.inputs.length;
      }
    };
    run().catch((err: unknown) => batches.forEach((batch) => batch.reject(err)));
  }

  /** Interval tick (and close): a checkpoint for every tenant with durable entries past its last checkpoint. */
  #checkpointDue(minNew: number): void {
    for (const state of this.#states.values()) {
      if (!state.failed && state.durableSize - state.lastCheckpointSize > minNew) this.#checkpoint(state, state.durableSize);
    }
  }

  #checkpoint(state: TenantState, size: number): Checkpoint | null {
    if (size <= state.lastCheckpointSize) return null;
    try {
      const cp = this.#signAndStore(state.tenantId, size);
      state.lastCheckpointSize = size;
      return cp;
    } catch (err) {
      this.#onError(err, 'checkpoint');
      return null;
    }
  }

  #signAndStore(tenantId: string, size: number): Checkpoint {
    const root = rangeHash(subtreeReader(this.#dbs, tenantId), 0, size);
    const cp = this.#signer.sign({ tenant_id: tenantId, tree_size: size, root_hash: hex(root), timestamp: this.#now().toISOString() });
    // Not awaited: a checkpoint lost to a crash is re-signed later; it never delays an append.
    this.#dbs.checkpoints.put([tenantId, size], cp).catch((err: unknown) => this.#onError(err, 'checkpoint write'));
    this.#anchor?.enqueue(cp);
    return cp;
  }

  #checkpointForExport(tenantId: string, size: number): Checkpoint {
    const existing = this.#dbs.checkpoints.get([tenantId, size]);
    if (existing) return existing;
    const cp = this.#signAndStore(tenantId, size);
    const state = this.#states.get(tenantId);
    if (state && size > state.lastCheckpointSize) state.lastCheckpointSize = size;
    return cp;
  }
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function checkTenant(tenantId: string): void {
  if (!isValidName(tenantId)) throw new LedgerError('invalid_tenant', 'tenant id must be a non-empty string of at most 256 UTF-8 bytes without control characters');
}
