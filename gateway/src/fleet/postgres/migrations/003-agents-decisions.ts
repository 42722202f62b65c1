import type { Migration } from './index.js';

/**
 * Agents and held decisions at the control plane (docs/fleet.md, "Agents and decisions"):
 * - `agents` gains where a registration came from (`origin`: made at the control plane, or first use at a sidecar)
 *   and its times; `agent_activity` holds what sidecars report (last_seen, last heartbeat). Activity has no bundle
 *   trigger: a heartbeat must not send every sidecar a new bundle.
 * - `ledger_entries.decision_id`, filled at ingest for entries that record a decision, with a partial index, so a
 *   decision is found by id and a tenant's decisions listed newest first (ids are ULIDs).
 * - `decision_resolutions`: one row per resolved decision; its primary key is what makes a resolve happen once across
 *   control-plane replicas. A resolution bumps the bundle revision: bundles carry recent resolutions to the sidecar
 *   that made the decision.
 */
export const AGENTS_DECISIONS_MIGRATION: Migration = {
  id: '003_agents_decisions',
  sql: `
ALTER TABLE agents
  ADD COLUMN origin text NOT NULL DEFAULT 'control' CHECK (origin IN ('control', 'sidecar')),
  ADD COLUMN metadata jsonb,
  ADD COLUMN created_at bigint NOT NULL DEFAULT (extract(epoch FROM now()) * 1000)::bigint,
  ADD COLUMN updated_at bigint NOT NULL DEFAULT (extract(epoch FROM now()) * 1000)::bigint;

CREATE TABLE agent_activity (
  tenant_id text NOT NULL,
  agent_id text NOT NULL,
  last_seen bigint NOT NULL,
  heartbeat_base bigint NOT NULL,
  reported_status text NOT NULL DEFAULT '',
  metadata jsonb,
  risk_score double precision NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, agent_id)
);

ALTER TABLE ledger_entries ADD COLUMN decision_id text;
CREATE INDEX ledger_entries_decision ON ledger_entries (tenant_id, decision_id) WHERE decision_id IS NOT NULL;

CREATE TABLE decision_resolutions (
  tenant_id text NOT NULL,
  decision_id text NOT NULL,
  chain_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('APPROVED', 'REJECTED')),
  note text NOT NULL,
  resolved_by text NOT NULL,
  resolved_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, decision_id)
);
CREATE INDEX decision_resolutions_recent ON decision_resolutions (resolved_at);
CREATE TRIGGER decision_resolutions_rows AFTER INSERT OR UPDATE OR DELETE ON decision_resolutions FOR EACH ROW EXECUTE FUNCTION aduana_row_changed('tenant_id', 'decision_id');
CREATE TRIGGER decision_resolutions_zz_bundle AFTER INSERT OR UPDATE OR DELETE ON decision_resolutions FOR EACH ROW EXECUTE FUNCTION aduana_bundle_changed();
`,
};
