import type { RootDatabase } from 'lmdb';
import { isoTime } from '@aduana/shared/core';
import type { DecisionWrites, ResolveOutcome } from '../../policy/decisions/decision-store.js';
import type { AnchorStats } from '../merkle/anchor-queue.js';
import type { Checkpoint } from '../merkle/checkpoint.js';
import { chainedEntry, prepareText, type LedgerEntry, type LedgerInput, type PreparedText } from '../log/entry-input.js';
import { LedgerError } from '../errors.js';
import type { ExportWrites } from '../lifecycle/export-jsonl.js';
import { checkTenant, LedgerReader, type LedgerReaderOptions } from '../ledger-reader.js';
import type { PruneLimits, PruneResult } from '../lifecycle/prune.js';
import { LedgerWriterClient } from './writer-client.js';
import type { WireInput, WriterSettings } from './writer-protocol.js';

export interface ThreadedLedgerOptions extends LedgerReaderOptions {
  /** Largest canonical entry, bytes (default 1 MiB). */
  maxEntryBytes?: number;
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
export class ThreadedLedger extends LedgerReader {
  readonly #client: LedgerWriterClient;
  readonly #maxEntryBytes: number;
  #closed = false;

  /**
   * Loads (or creates) the checkpoint key, then starts the writer thread over `settings.dataDir` (which loads the
   * key this thread made: no two threads create it). Writes may be made at once; `ready` says the writer opened.
   */
  constructor(root: RootDatabase, options: ThreadedLedgerOptions, settings: WriterSettings) {
    super(root, options);
    this.#maxEntryBytes = options.maxEntryBytes ?? 1024 * 1024;
    const maxEntryBytes = options.maxEntryBytes !== undefined ? { maxEntryBytes: options.maxEntryBytes } : {};
    this.#client = new LedgerWriterClient({ ...settings, ...maxEntryBytes }, root, options.onError ?? (() => {}), options.writerModule);
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

  /** As Ledger.append: atomic, resolves once flushed; invalid input rejects before anything is handed over. */
  async append(tenantId: string, inputs: readonly LedgerInput[]): Promise<LedgerEntry[]> {
    this.#checkOpen();
    checkTenant(tenantId);
    if (!Array.isArray(inputs) || inputs.length === 0) throw new LedgerError('invalid_input', 'a batch holds at least one event');
    const now = isoTime(this.now().getTime());
    const prepared = inputs.map((input, i) => prepareText(input, i, now, this.#maxEntryBytes));
    const links = await this.inFlight.track(tenantId, this.#client.append(tenantId, 'turn', prepared.map(wire)));
    return links.map((link, i) => chainedEntry(prepared[i]!.fields, tenantId, link));
  }

  appendGrouped(tenantId: string, input: LedgerInput): Promise<LedgerEntry> {
    try {
      return this.enqueueGrouped(tenantId, input);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** As Ledger.enqueueGrouped: a bad input, a failed writer or a writer too far behind throws here, synchronously. */
  enqueueGrouped(tenantId: string, input: LedgerInput): Promise<LedgerEntry> {
    this.#checkOpen();
    checkTenant(tenantId);
    const prepared = prepareText(input, 0, isoTime(this.now().getTime()), this.#maxEntryBytes);
    return this.inFlight.track(tenantId, this.#client.append(tenantId, 'group', [wire(prepared)])).then((links) => chainedEntry(prepared.fields, tenantId, links[0]!));
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

  protected checkOpen(): void {
    this.#checkOpen();
  }

  /** Hands over what is queued, waits for it to be flushed and the final checkpoints signed, ends the writer thread. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.pruneSettled();
    await this.#client.close();
  }

  #checkOpen(): void {
    if (this.#closed) throw new LedgerError('closed', 'the ledger is closed');
  }
}

function wire(p: PreparedText): WireInput {
  return { text: p.text, eventType: p.eventType, agentId: p.agentId, countKey: p.countKey };
}
