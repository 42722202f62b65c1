import { IF_EXISTS, type Key, type PutOptions, type RootDatabase } from 'lmdb';
import type { Checkpointer } from '../merkle/checkpointer.js';
import type { QueuedBatch } from './commit-queue.js';
import { chainTail, type ChainInput, type ChainLink } from './entry-input.js';
import { LedgerError } from '../errors.js';
import { entryHashOfBytes, leafHash } from './hash.js';
import { pushLeaf } from '../merkle/merkle.js';
import { compactRecord, draftRecord, sealRecord } from './record-codec.js';
import { EMPTY, type LedgerDbs } from '../storage/store.js';
import { countersFor, TenantState, type CounterBump } from './tenant-state.js';

/** A promise for the flush of the transaction the writes just issued belong to (lmdb-js: resolved put = committed only). */
export function flushOfCurrentTxn(root: RootDatabase): Promise<unknown> {
  // `root.flushed` is a thenable that looks up the *current* transaction's flush promise when `then` is called, so
  // it is called synchronously, right after the puts; awaited later it could wait for a later transaction.
  return new Promise((resolve, reject) => {
    root.flushed.then(resolve, reject);
  });
}

/** lmdb-js takes put options (MDB_APPEND) at run time; its typings declare them for putSync only. */
type PutWithOptions = (key: Key, value: Buffer, options: PutOptions) => Promise<boolean>;
const APPEND: PutOptions = { append: true };

/**
 * The single writer of every tenant's chain: assigns seq, prev_hash and hash from the in-memory head, writes each
 * append as one conditional LMDB block, and resolves only once that block is flushed to disk.
 */
export class ChainWriter {
  readonly #dbs: LedgerDbs;
  readonly #checkpointer: Checkpointer;
  readonly #states = new Map<string, TenantState>();
  readonly #recovering = new Map<string, Promise<TenantState>>();
  /** Told each time a tenant's appends became durable (the fleet shipper's wake-up); must only set a flag. */
  onDurable: ((tenantId: string) => void) | null = null;
  /**
   * The tenant (UTF-8) whose records sort last in `ledger_entries`, as far as this writer has written: that tenant's
   * new records go after every stored key, so they are put with MDB_APPEND, which fills pages instead of splitting
   * them in half (a record's pages per entry fall by about a quarter). null: the database is empty; false: appending
   * is off after a refused append (see #commit).
   */
  #lastTenant: Buffer | null | false;

  /** LEDGER_COMPRESSION: whether a record of this event type is stored with its text compressed (record-codec.ts, version 2). */
  readonly #compress: (eventType: string) => boolean;

  constructor(dbs: LedgerDbs, checkpointer: Checkpointer, compress: (eventType: string) => boolean = () => false) {
    this.#dbs = dbs;
    this.#checkpointer = checkpointer;
    this.#compress = compress;
    this.#lastTenant = null;
    for (const key of dbs.entries.getKeys({ reverse: true, limit: 1 })) this.#lastTenant = Buffer.from((key as [string, number])[0], 'utf8');
  }

  /**
   * Whether the tenant's keys sort after every stored record key. Keys are [tenant, seq] in lmdb-js's ordered-binary
   * form: the tenant's UTF-8 bytes, then a separator below any character a name may hold, so tenants sort as their
   * UTF-8 bytes do, a prefix first; and the tenant's own new seqs are above its stored ones.
   */
  #appendable(state: TenantState): boolean {
    if (this.#lastTenant === false) return false;
    const tenant = state.tenantUtf8;
    if (this.#lastTenant !== null && Buffer.compare(tenant, this.#lastTenant) < 0) return false;
    this.#lastTenant = tenant;
    return true;
  }

  get states(): Iterable<TenantState> {
    return this.#states.values();
  }

  /** Commits queued batches of several callers as one append; each caller gets its own slice (or the shared failure). */
  commitQueued(tenantId: string, batches: QueuedBatch[]): void {
    const run = async (): Promise<void> => {
      const state = this.healthyState(tenantId) ?? (await this.#recover(tenantId));
      const links = await this.#commit(state, batches.length === 1 ? batches[0]!.inputs : batches.flatMap((b) => b.inputs));
      let at = 0;
      for (const batch of batches) {
        batch.resolve(batches.length === 1 ? links : links.slice(at, at + batch.inputs.length));
        at += batch.inputs.length;
      }
    };
    run().catch((err: unknown) => batches.forEach((batch) => batch.reject(err)));
  }

  /** The tenant's head, loaded on first use; null while it must be reloaded after a failed write. */
  healthyState(tenantId: string): TenantState | null {
    const state = this.#states.get(tenantId);
    if (state && !state.failed) return state;
    if (!state && !this.#recovering.has(tenantId)) {
      const loaded = TenantState.load(this.#dbs, tenantId);
      this.#states.set(tenantId, loaded);
      return loaded;
    }
    return null;
  }

  peekState(tenantId: string): TenantState | undefined {
    return this.#states.get(tenantId);
  }

  /** Resolves when every write issued so far has settled. */
  async settled(): Promise<void> {
    for (const state of this.#states.values()) await Promise.allSettled([...state.inflight]);
  }

  /** After a failed write: let the tenant's in-flight writes settle (they fail too: their predecessor is missing), then reload from disk. */
  #recover(tenantId: string): Promise<TenantState> {
    let pending = this.#recovering.get(tenantId);
    if (!pending) {
      const old = this.#states.get(tenantId);
      pending = (async () => {
        try {
          if (old) await Promise.allSettled([...old.inflight]);
          await this.#dbs.root.committed;
          const state = TenantState.load(this.#dbs, tenantId);
          this.#states.set(tenantId, state);
          return state;
        } finally {
          this.#recovering.delete(tenantId);
        }
      })();
      this.#recovering.set(tenantId, pending);
    }
    return pending;
  }

  /** Assigns seq/prev_hash/hash synchronously from the in-memory head, issues one conditional LMDB block, awaits its flush. */
  #commit(state: TenantState, prepared: readonly ChainInput[]): Promise<ChainLink[]> {
    const { entries, index, counts } = this.#dbs;
    const tenantId = state.tenantId;
    const firstSeq = state.size + 1;
    const records: Buffer[] = [];
    const result: ChainLink[] = [];
    const groups = new Map<string, { input: ChainInput; n: number }>();
    for (const input of prepared) {
      const seq = state.size + 1;
      const prevHash = state.headHash;
      const { record, textAt } = draftRecord(seq, input.prefix, chainTail(prevHash, seq, state.tenantJson));
      const hash = entryHashOfBytes(prevHash, record.subarray(textAt));
      sealRecord(record, hash, pushLeaf(state.peaks, leafHash(hash)));
      records.push(this.#compress(input.eventType) ? compactRecord(record, textAt) : record);
      state.size = seq;
      state.headHash = hash.toString('hex');
      const group = groups.get(input.countKey);
      if (group) group.n++;
      else groups.set(input.countKey, { input, n: 1 });
      result.push({ seq, prev_hash: prevHash, hash: state.headHash });
    }
    // Counters move once per (agent, event_type) of the append, not once per entry.
    const bumped = new Map<string, CounterBump>();
    for (const { input, n } of groups.values()) {
      for (const bump of countersFor(tenantId, input)) {
        state.counts.set(bump.id, (state.counts.get(bump.id) ?? counts.get(bump.key) ?? 0) + n);
        bumped.set(bump.id, bump);
      }
    }
    const size = state.size;
    const append = this.#appendable(state);
    const writeIndexes = (): void => {
      for (let i = 0; i < prepared.length; i++) {
        const seq = firstSeq + i;
        const input = prepared[i]!;
        // Two index keys: by type, and by agent + type (an agent's listing merges its types' ranges, list-entries.ts).
        index.put([tenantId, 't', input.eventType, seq], EMPTY);
        if (input.agentId !== null) index.put([tenantId, 'at', input.agentId, input.eventType, seq], EMPTY);
      }
      for (const bump of bumped.values()) counts.put(bump.key, state.counts.get(bump.id)!);
      counts.put([tenantId, 'n'], size);
    };
    // A refused MDB_APPEND fails only its own put, not the block; the indexes and counters are therefore written in a
    // block conditional on the batch's last record (records are put in ascending order, so a refused one leaves the
    // last one unwritten too): a refused append stores nothing of the batch.
    let indexed: Promise<boolean> | null = null;
    const writeAll = (): void => {
      if (append) {
        const put = entries.put as PutWithOptions;
        for (let i = 0; i < records.length; i++) void put.call(entries, [tenantId, firstSeq + i], records[i]!, APPEND);
        indexed = entries.ifVersion([tenantId, size], IF_EXISTS, writeIndexes);
      } else {
        for (let i = 0; i < records.length; i++) void entries.put([tenantId, firstSeq + i], records[i]!);
        writeIndexes();
      }
    };
    // Conditional on the predecessor being on disk: if an earlier append failed, this one cannot leave a gap.
    let written: Promise<boolean>;
    try {
      written = firstSeq === 1 ? entries.ifNoExists([tenantId, 1], writeAll) : entries.ifVersion([tenantId, firstSeq - 1], IF_EXISTS, writeAll);
    } catch (err) {
      state.failed = true; // the head ran ahead of what was written: reload before the next append
      return Promise.reject(new LedgerError('write_failed', 'the ledger write failed', null, { cause: err }));
    }
    const flushed = flushOfCurrentTxn(this.#dbs.root);
    return this.#settle(state, written, indexed, flushed, size).then(() => result);
  }

  async #settle(state: TenantState, written: Promise<boolean>, indexed: Promise<boolean> | null, flushed: Promise<unknown>, size: number): Promise<void> {
    const tracked = (async () => {
      let ok: boolean;
      try {
        ok = await written;
        if (ok && indexed !== null && !(await indexed)) {
          // A key above this tenant's that this writer did not write: never expected; stop appending, keep working.
          this.#lastTenant = false;
          state.failed = true;
          throw new LedgerError('write_failed', 'the ledger refused an append; nothing of this batch was stored');
        }
        if (ok) await flushed;
      } catch (err) {
        if (err instanceof LedgerError) throw err;
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
    this.#checkpointer.afterDurable(state);
    this.onDurable?.(state.tenantId);
  }
}
