import type { Migration } from './index.js';

/**
 * The ledger archive (docs/fleet.md, "Shipping the ledger"): every sidecar chain's entries and checkpoints, verified
 * as they arrive. A chain row holds what verifying the next batch needs without re-reading entries: the head and the
 * Merkle right edge (`frontier`, one 32-byte peak per set bit of head_seq, largest subtree first). Each entry row
 * keeps the roots of the aligned subtrees it completes (`nodes`, as the local ledger's records do), so a root at any
 * earlier size and every proof cost O(log n) row reads.
 */
export const LEDGER_MIGRATION: Migration = {
  id: '002_ledger',
  sql: `
CREATE TABLE ledger_chains (
  chain_id text PRIMARY KEY,
  tenant_id text NOT NULL,
  instance_id text NOT NULL,
  public_key jsonb NOT NULL,
  head_seq bigint NOT NULL DEFAULT 0,
  head_hash text NOT NULL,
  frontier bytea NOT NULL DEFAULT '\\x',
  checkpoint_size bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_chains_tenant ON ledger_chains (tenant_id, chain_id);

CREATE TABLE ledger_entries (
  chain_id text NOT NULL,
  seq bigint NOT NULL,
  tenant_id text NOT NULL,
  created_at timestamptz NOT NULL,
  event_type text NOT NULL,
  agent_id text,
  hash bytea NOT NULL,
  nodes bytea NOT NULL,
  entry text NOT NULL,
  PRIMARY KEY (chain_id, seq)
);
CREATE INDEX ledger_entries_tenant_time ON ledger_entries (tenant_id, created_at, chain_id, seq);

CREATE TABLE ledger_checkpoints (
  chain_id text NOT NULL,
  tree_size bigint NOT NULL,
  checkpoint jsonb NOT NULL,
  PRIMARY KEY (chain_id, tree_size)
);
`,
};
