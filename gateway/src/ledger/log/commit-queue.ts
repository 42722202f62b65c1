import type { ChainInput, ChainLink } from './entry-input.js';

/** One caller's validated inputs, waiting to be committed together with other callers' of the same tenant. */
export interface QueuedBatch {
  inputs: ChainInput[];
  resolve: (links: ChainLink[]) => void;
  reject: (err: unknown) => void;
}

interface Pending {
  batches: QueuedBatch[];
  size: number;
  timer: NodeJS.Timeout | NodeJS.Immediate | null;
}

/**
 * Per-tenant queue that merges the batches of many callers into one chain append: one conditional LMDB block, one
 * set of counter writes, one flush wait, instead of one each per caller. `window` 'turn' commits on the next
 * event-loop turn (what `append` uses: it adds no measurable latency, and concurrent callers, whose promises all
 * resume in the same turn after a flush, share everything); a number of milliseconds bounds how long entries may
 * wait for company (`appendGrouped`). A queue reaching `maxSize` entries is committed at once.
 */
export class CommitQueue {
  readonly #pending = new Map<string, Pending>();
  readonly #commit: (tenantId: string, batches: QueuedBatch[]) => void;
  readonly #window: 'turn' | number;
  readonly #maxSize: number;

  constructor(commit: (tenantId: string, batches: QueuedBatch[]) => void, window: 'turn' | number, maxSize: number) {
    this.#commit = commit;
    this.#window = window;
    this.#maxSize = maxSize;
  }

  add(tenantId: string, inputs: ChainInput[]): Promise<ChainLink[]> {
    return new Promise((resolve, reject) => {
      let pending = this.#pending.get(tenantId);
      if (!pending) {
        pending = { batches: [], size: 0, timer: null };
        this.#pending.set(tenantId, pending);
      }
      pending.batches.push({ inputs, resolve, reject });
      pending.size += inputs.length;
      if (pending.size >= this.#maxSize) this.flush(tenantId);
      else if (pending.timer === null) {
        pending.timer = this.#window === 'turn' ? setImmediate(() => this.flush(tenantId)) : setTimeout(() => this.flush(tenantId), this.#window);
      }
    });
  }

  flush(tenantId: string): void {
    const pending = this.#pending.get(tenantId);
    if (!pending) return;
    this.#pending.delete(tenantId);
    if (pending.timer !== null) {
      clearTimeout(pending.timer as NodeJS.Timeout);
      clearImmediate(pending.timer as NodeJS.Immediate);
    }
    this.#commit(tenantId, pending.batches);
  }

  flushAll(): void {
    for (const tenantId of [...this.#pending.keys()]) this.flush(tenantId);
  }
}
