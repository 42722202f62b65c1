import type { MessagePort } from 'node:worker_threads';
import type { RootDatabase } from 'lmdb';
import type { DecisionWrites, ResolveOutcome } from '../decisions/decision-store.js';
import type { AnchorStats } from '../../ledger/merkle/anchor-queue.js';
import type { Checkpoint } from '../../ledger/merkle/checkpoint.js';
import type { ChainLink, PreparedText } from '../../ledger/log/entry-input.js';
import type { ExportWrites } from '../../ledger/lifecycle/export-jsonl.js';
import { checkTenant, LedgerBase, type CommitWindow, type LedgerBaseOptions } from '../../ledger/ledger-base.js';
import type { PruneLimits, PruneResult } from '../../ledger/lifecycle/prune.js';
import { LedgerWriterClient } from './writer-client.js';
import type { WireInput, WriterSettings } from './writer-protocol.js';

export interface ThreadedLedgerOptions extends LedgerBaseOptions {
  /** Background failures (the writer's checkpoint writes and time-stamping, the writer thread itself): reported here. */
  onError?: (err: unknown, context: string) => void;
  /** The writer thread's module (tests: one that fails); default writer-thread.ts. */
  writerModule?: URL;
}

/**
 * The gateway's ledger: the same API as Ledger (docs/ledger.md), with every write made by the process's one ledger
 * writer thread. Appends are validated and canonicalised here, synchronously (a refused entry throws before the call
 * is answered, as in-thread), then handed over without waiting; reads run here, on the committed state.
 */
export class ThreadedLedger extends LedgerBase {
  readonly #client: LedgerWriterClient;

  /**
   * Loads (or creates) the checkpoint key, then starts the writer thread over `settings.dataDir` (which loads the
   * key this thread made: no two threads create it). Writes may be made at once; `ready` says the writer opened.
   * Given a port another ThreadedLedger attached (`attach`) instead, it writes through that ledger's writer thread (a
   * request thread's ledger: the process keeps one writer).
   */
  constructor(root: RootDatabase, options: ThreadedLedgerOptions, writer: WriterSettings | MessagePort) {
    super(root, options);
    const maxEntryBytes = options.maxEntryBytes !== undefined ? { maxEntryBytes: options.maxEntryBytes } : {};
    this.#client = new LedgerWriterClient('dataDir' in writer ? { ...writer, ...maxEntryBytes } : writer, root, options.onError ?? (() => {}), options.writerModule);
  }

  /** Resolves once every write this ledger (and the decision index through it) handed over so far is answered. */
  barrier(): Promise<void> {
    return this.#client.barrier();
  }

  /** A port for another thread's ThreadedLedger to write through this one's writer thread. */
  attach(): MessagePort {
    return this.#client.attach();
  }

  /** A ledger whose writer is ready. */
  static async start(root: RootDatabase, options: ThreadedLedgerOptions, settings: WriterSettings): Promise<ThreadedLedger> {
    const ledger = new ThreadedLedger(root, options, settings);
    await ledger.ready;
    return ledger;
  }

  override get writable(): boolean {
    return !this.#client.failed;
  }

  /** Resolves once the writer thread opened its ledger; rejects with why it could not. */
  get ready(): Promise<void> {
    return this.#client.ready;
  }

  /** The writer's time-stamping sender's state; `pending` read here, so it agrees with the anchors this thread reads. */
  get anchorStats(): AnchorStats | null {
    const stats = this.#client.anchorStats;
    return stats === null ? null : { ...stats, pending: this.dbs.anchorQueue.getKeysCount() };
  }

  /** Hands the inputs over; throws (synchronously) when the writer failed or is too far behind. */
  protected chain(tenantId: string, inputs: PreparedText[], window: CommitWindow): Promise<ChainLink[]> {
    return this.#client.append(tenantId, window, inputs.map(wire));
  }

  setDurableListener(listener: ((tenantId: string) => void) | null): void {
    this.#client.onDurable = listener;
  }

  /** Signs (and stores) a checkpoint at the current durable head now, if entries arrived since the last one. */
  async checkpointNow(tenantId: string): Promise<Checkpoint | null> {
    checkTenant(tenantId);
    return (await this.#client.call('checkpointNow', tenantId)) as Checkpoint | null;
  }

  /** The decision index's writes, made by the writer thread too (DecisionStore's second argument). */
  get decisionWrites(): DecisionWrites {
    return {
      write: (rec) => this.#client.writeDecision(rec),
      resolve: async (tenantId, id, resolution) => (await this.#client.call('resolveDecision', tenantId, id, resolution)) as ResolveOutcome,
    };
  }

  protected get exportWrites(): ExportWrites {
    return {
      checkpointAt: async (tenantId, size) => (await this.#client.call('checkpointAt', tenantId, size)) as Checkpoint,
      markExported: async (tenantId, size) => {
        await this.#client.call('markExported', tenantId, size);
      },
    };
  }

  protected async runPrune(tenantId: string, limits: PruneLimits): Promise<PruneResult> {
    return (await this.#client.call('prune', tenantId, limits)) as PruneResult;
  }

  /** Hands over what is queued, waits for it to be flushed and the final checkpoints signed, ends the writer thread. */
  async close(): Promise<void> {
    if (!this.markClosed()) return;
    await this.pruneSettled();
    await this.#client.close();
  }
}

function wire(p: PreparedText): WireInput {
  return { text: p.text, eventType: p.eventType, agentId: p.agentId, countKey: p.countKey };
}
