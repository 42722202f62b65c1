import type { Migration } from './index.js';

/**
 * Who may append to a shipped chain (docs/fleet.md, "Shipping the ledger"): `ledger_chains.sidecar_token_id` is the
 * sidecar token (the first of its line of rotations) whose sidecar opened the chain; batches under any other token are
 * refused. Chains stored before this migration have none, and are bound by the first batch that appends to them.
 * The index finds an instance's other chains when one is opened: all of an instance's chains share its binding.
 */
export const CHAIN_BINDING_MIGRATION: Migration = {
  id: '005_chain_binding',
  sql: `
ALTER TABLE ledger_chains ADD COLUMN sidecar_token_id text;
CREATE INDEX ledger_chains_instance ON ledger_chains (instance_id);
`,
};
