import type { LedgerEntry } from './log/entry-input.js';

// Shapes the Ledger's read and proof calls answer with; the HTTP routes serialise them as they are.

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
