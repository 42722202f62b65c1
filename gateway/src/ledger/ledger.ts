import type { RootDatabase } from 'lmdb';
import { AnchorQueue, type AnchorOptions, type AnchorStats } from './merkle/anchor-queue.js';
import { ChainWriter, flushOfCurrentTxn } from './log/chain-writer.js';
import type { Checkpoint } from './merkle/checkpoint.js';
import { Checkpointer } from './merkle/checkpointer.js';
import { CommitQueue } from './log/commit-queue.js';
import type { ChainInput, ChainLink, PreparedText } from './log/entry-input.js';
import type { ExportWrites } from './lifecycle/export-jsonl.js';
import { markExported } from './lifecycle/export-mark.js';
import { checkTenant, LedgerBase, type CommitWindow, type LedgerBaseOptions } from './ledger-base.js';
import { pruneTenant, type PruneLimits, type PruneResult } from './lifecycle/prune.js';

export type { ConsistencyProof, InclusionProof, LedgerHead, ListPage, ListQuery } from './ledger-types.js';

export interface LedgerOptions extends LedgerBaseOptions {
  /** Signed checkpoint once this many entries are durable past the last one (default 1,000). */
  checkpointEvery?: number;
  /** …and at least this often when new entries exist (default 60 s). */
  checkpointIntervalMs?: number;
  /** appendGrouped: window within which entries are group-committed (default 5 ms). */
  groupCommitMs?: number;
  /** appendGrouped: a group this large is committed without waiting for the window (default 1,000). */
  maxGroupSize?: number;
  /**
   * Store new records compressed: all, none (default), or those of the event types the function picks
   * (LEDGER_COMPRESSION). Records already compressed are read either way, so switching it off never strands data
   * (docs/ledger.md, "Storage").
   */
  compress?: boolean | ((eventType: string) => boolean);
  /**
   * RFC 3161 time-stamping of checkpoints (docs/ledger.md, "Anchoring"): `tenant` picks the tenants whose checkpoints
   * are queued for the TSA (the enterprise plan's), `tsaUrl` (ANCHOR_TSA_URL) is where this process sends them. Without
   * `tsaUrl` they are only queued, for the gateway that has one to send (the CLI's export checkpoints).
   */
  anchoring?: ({ tenant: (tenantId: string) => boolean; tsaUrl?: string | null } & AnchorOptions) | null;
  /** Background failures (checkpoint writes, time-stamping): never thrown, reported here. */
  onError?: (err: unknown, context: string) => void;
}

export type { CommitWindow } from './ledger-base.js';

/**
 * The tamper-evident events ledger: one SHA-256 hash chain per tenant in LMDB, an RFC 9162 Merkle tree over it,
 * Ed25519-signed checkpoints. See docs/ledger.md for the hash definition, storage layout and durability design.
 *
 * This class writes from the thread that calls it: the CLI and tools use it directly, and the gateway's ledger
 * writer thread runs one (governance/writer/); the API, reads and validation are LedgerBase's.
 */
export class Ledger extends LedgerBase {
  readonly #anchor: AnchorQueue | null;
  readonly #checkpointer: Checkpointer;
  readonly #writer: ChainWriter;
  /** append(): callers of one event-loop turn share a chain append. */
  readonly #turnQueue: CommitQueue;
  /** appendGrouped(): entries wait up to groupCommitMs for company. */
  readonly #groupQueue: CommitQueue;
  readonly #interval: NodeJS.Timeout;

  private constructor(root: RootDatabase, options: LedgerOptions) {
    super(root, options);
    const onError = options.onError ?? (() => {});
    const anchoring = options.anchoring ?? null;
    const tsaCert = this.tsaCertificate;
    this.#anchor = anchoring?.tsaUrl ? new AnchorQueue(this.dbs, anchoring.tsaUrl, tsaCert, { ...anchoring, onError: (err) => onError(err, 'anchor') }) : null;
    this.#checkpointer = new Checkpointer(this.dbs, this.signer, anchoring ? { tenant: anchoring.tenant, queue: this.#anchor } : null, {
      every: options.checkpointEvery ?? 1000,
      now: this.now,
      onError,
    });
    const compress = options.compress ?? false;
    this.#writer = new ChainWriter(this.dbs, this.#checkpointer, typeof compress === 'function' ? compress : () => compress);
    const commit = this.#writer.commitQueued.bind(this.#writer);
    this.#turnQueue = new CommitQueue(commit, 'turn', 10_000);
    this.#groupQueue = new CommitQueue(commit, options.groupCommitMs ?? 5, options.maxGroupSize ?? 1000);
    this.#interval = setInterval(() => this.#checkpointer.due(this.#writer.states), options.checkpointIntervalMs ?? 60_000);
    this.#interval.unref();
  }

  /** Opens the ledger's databases in `root` (the gateway's environment, from openStore) and loads the signing key. */
  static open(root: RootDatabase, options: LedgerOptions): Ledger {
    return new Ledger(root, options);
  }

  /** The time-stamping sender's state (`GET /v1/telemetry/status`); null when this process sends none. */
  get anchorStats(): AnchorStats | null {
    return this.#anchor?.stats ?? null;
  }

  protected chain(tenantId: string, inputs: PreparedText[], window: CommitWindow): Promise<ChainLink[]> {
    // Encoded here, once: the size check counted the same bytes.
    return this.commitPrepared(
      tenantId,
      inputs.map((p) => ({ prefix: Buffer.from(p.text), eventType: p.eventType, agentId: p.agentId, countKey: p.countKey })),
      window,
    );
  }

  /**
   * The writer thread's append: inputs a request thread validated and encoded (prepareText), chained as `append`
   * (window 'turn') or `appendGrouped` ('group') would; resolves with where each landed once flushed.
   */
  commitPrepared(tenantId: string, inputs: ChainInput[], window: CommitWindow): Promise<ChainLink[]> {
    this.checkOpen();
    return (window === 'turn' ? this.#turnQueue : this.#groupQueue).add(tenantId, inputs);
  }

  /**
   * One listener told (synchronously, after each flushed append) which tenant's chain grew: the fleet shipper's
   * wake-up (docs/fleet.md, "Shipping the ledger"). It must only note the tenant; null removes it.
   */
  setDurableListener(listener: ((tenantId: string) => void) | null): void {
    this.#writer.onDurable = listener;
  }

  /** Signs (and stores) a checkpoint at the current durable head now, if entries arrived since the last one. */
  checkpointNow(tenantId: string): Checkpoint | null {
    checkTenant(tenantId);
    const state = this.#writer.healthyState(tenantId);
    return state ? this.#checkpointer.checkpoint(state) : null;
  }

  /** The checkpoint for exactly `size` committed entries: the stored one, or one signed and stored now (an export's last). */
  checkpointForExport(tenantId: string, size: number): Checkpoint {
    return this.#checkpointer.forSize(tenantId, size, this.#writer.peekState(tenantId));
  }

  /** Records that entries 1..size were exported completely (retention's release mark outside fleet mode). */
  markExportedThrough(tenantId: string, size: number): Promise<void> {
    return markExported(this.dbs, tenantId, size);
  }

  protected get exportWrites(): ExportWrites {
    return { checkpointAt: (tenantId, size) => this.checkpointForExport(tenantId, size), markExported: (tenantId, size) => this.markExportedThrough(tenantId, size) };
  }

  protected runPrune(tenantId: string, limits: PruneLimits): Promise<PruneResult> {
    return pruneTenant(this.dbs, this.signer, tenantId, limits);
  }

  /** Commits pending groups, waits for every write to be flushed, signs final checkpoints, stops time-stamping (the queue stays). */
  async close(): Promise<void> {
    if (!this.markClosed()) return;
    this.#turnQueue.flushAll();
    this.#groupQueue.flushAll();
    clearInterval(this.#interval);
    await this.pruneSettled();
    await this.#writer.settled();
    this.#checkpointer.due(this.#writer.states);
    await flushOfCurrentTxn(this.dbs.root);
    await this.#anchor?.close();
  }
}
