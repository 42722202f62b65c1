import type { Database } from 'lmdb';

/** How far the control plane has acknowledged one tenant's chain of this sidecar. */
export interface ShipCursor {
  /** Highest seq the control plane acknowledged holding. */
  acked_seq: number;
  /** Largest checkpoint tree_size it acknowledged. */
  checkpoint_size: number;
}

const START: ShipCursor = Object.freeze({ acked_seq: 0, checkpoint_size: 0 });

/**
 * The shipper's only state of its own (the local ledger is the outbox): one cursor per tenant in the sidecar's LMDB.
 * Written after the control plane's acknowledgement; a cursor lost to a crash only means a harmless resend.
 */
export class ShipCursorStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  get(tenantId: string): ShipCursor {
    return (this.#db.get(tenantId) as ShipCursor | undefined) ?? START;
  }

  async put(tenantId: string, cursor: ShipCursor): Promise<void> {
    await this.#db.put(tenantId, { acked_seq: cursor.acked_seq, checkpoint_size: cursor.checkpoint_size });
  }
}
