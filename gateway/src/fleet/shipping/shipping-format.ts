import type { LedgerEntry } from '../../ledger/log/entry-input.js';
import type { Checkpoint, LedgerPublicKey } from '../../ledger/merkle/checkpoint.js';

/**
 * One POST /v1/fleet/ledger from a sidecar (docs/fleet.md, "Shipping the ledger"): consecutive entries of one chain
 * (a chain is one sidecar instance's ledger of one tenant), with the signed checkpoints whose tree_size falls within
 * them. At least once: the sidecar resends from its last acknowledged seq until the control plane acknowledges; the
 * control plane stores each (chain_id, seq) once and refuses an entry whose hash differs from the stored one (a fork).
 */
export interface ShippedBatch {
  format: typeof SHIPPING_FORMAT;
  /** `<sidecar instance id>/<tenant id>`: the instance id is made once per data dir and kept in its LMDB. */
  chain_id: string;
  tenant_id: string;
  /** The sidecar's checkpoint-signing key: pinned to the chain at its first batch, refused if it ever changes. */
  public_key: LedgerPublicKey;
  /** Consecutive by seq, ascending, starting at most one past the control plane's last stored seq. */
  entries: LedgerEntry[];
  checkpoints: Checkpoint[];
}

export const SHIPPING_FORMAT = 'aduana-ledger-batch/1';

export interface ShippedAck {
  chain_id: string;
  /** The highest seq the control plane holds for the chain (durably, in the same transaction as the batch). */
  acked_seq: number;
}
