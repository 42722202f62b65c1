import type { AnchorQueue } from './anchor-queue.js';
import type { Checkpoint, CheckpointSigner } from './checkpoint.js';
import { rangeHash } from './merkle.js';
import { subtreeReader, type LedgerDbs } from '../storage/store.js';
import type { TenantState } from '../log/tenant-state.js';

/** Which tenants' checkpoints are time-stamped, and the sender (null where this process only queues them: the CLI). */
export interface CheckpointAnchoring {
  tenant: (tenantId: string) => boolean;
  queue: AnchorQueue | null;
}

/**
 * Signs, stores and anchors checkpoints: every `every` durable entries past the last one, on the interval and at
 * close for tenants with new durable entries, and on demand for exports. Never throws into an append: failures go
 * to `onError`.
 */
export class Checkpointer {
  readonly #dbs: LedgerDbs;
  readonly #signer: CheckpointSigner;
  readonly #anchoring: CheckpointAnchoring | null;
  readonly #every: number;
  readonly #now: () => Date;
  readonly #onError: (err: unknown, context: string) => void;

  constructor(
    dbs: LedgerDbs,
    signer: CheckpointSigner,
    anchoring: CheckpointAnchoring | null,
    options: { every: number; now: () => Date; onError: (err: unknown, context: string) => void },
  ) {
    this.#dbs = dbs;
    this.#signer = signer;
    this.#anchoring = anchoring;
    this.#every = options.every;
    this.#now = options.now;
    this.#onError = options.onError;
  }

  /** After a batch is flushed: a checkpoint when `every` entries have become durable since the last one. */
  afterDurable(state: TenantState): void {
    if (state.durableSize - state.lastCheckpointSize >= this.#every) this.checkpoint(state);
  }

  /** Interval tick and close: a checkpoint for each tenant with durable entries past its last checkpoint. */
  due(states: Iterable<TenantState>): void {
    for (const state of states) if (!state.failed) this.checkpoint(state);
  }

  /** Signs the tenant's durable head, if it moved since the last checkpoint. */
  checkpoint(state: TenantState): Checkpoint | null {
    const size = state.durableSize;
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

  /** The checkpoint for exactly `size` committed entries (an export's), signed now unless one exists. */
  forSize(tenantId: string, size: number, state: TenantState | undefined): Checkpoint {
    const existing = this.#dbs.checkpoints.get([tenantId, size]);
    if (existing) return existing;
    const cp = this.#signAndStore(tenantId, size);
    if (state && size > state.lastCheckpointSize) state.lastCheckpointSize = size;
    return cp;
  }

  #signAndStore(tenantId: string, size: number): Checkpoint {
    const root = Buffer.from(rangeHash(subtreeReader(this.#dbs, tenantId), 0, size)).toString('hex');
    const cp = this.#signer.sign({ tenant_id: tenantId, tree_size: size, root_hash: root, timestamp: this.#now().toISOString() });
    // Not awaited: a checkpoint lost to a crash is signed again later; it never delays an append.
    this.#dbs.checkpoints.put([tenantId, size], cp).catch((err: unknown) => this.#onError(err, 'checkpoint write'));
    this.#queueForAnchor(tenantId, size);
    return cp;
  }

  /** Queues the checkpoint for the TSA (durably: anchor-queue.ts) when its tenant's checkpoints are time-stamped. */
  #queueForAnchor(tenantId: string, size: number): void {
    const anchoring = this.#anchoring;
    if (!anchoring) return;
    let wanted: boolean;
    try {
      wanted = anchoring.tenant(tenantId);
    } catch (err) {
      this.#onError(err, 'anchor');
      return;
    }
    if (!wanted) return;
    this.#dbs.anchorQueue.put([tenantId, size], Date.now()).then(
      () => anchoring.queue?.wake(),
      (err: unknown) => this.#onError(err, 'anchor queue write'),
    );
  }
}
