import type { Migration } from './index.js';

/**
 * Telemetry at the control plane (docs/fleet.md, "Telemetry"), shipped by sidecars already PII-redacted:
 * - `telemetry_batches`: each batch stored, by sidecar instance and batch id, so a resend stores nothing twice.
 * - `telemetry_metric_seconds`: one row per tenant, agent and second, every sidecar's samples added together; counts
 *   are that second's totals, latency and cost keep every sample (percentiles are exact over a window's samples).
 *   NULL is "no sample", as in the sidecar's slots, so a second without a measure adds no point to its series.
 * - `telemetry_logs`, `telemetry_error_events`: as the API answers them (json keeps their key order); ids are ULIDs,
 *   compared byte-wise (COLLATE "C") so newest first is id order, as in the sidecar's LMDB.
 * - `telemetry_error_issues`: events grouped by fingerprint, with count, first and last seen.
 */
export const TELEMETRY_MIGRATION: Migration = {
  id: '004_telemetry',
  sql: `
CREATE TABLE telemetry_batches (
  instance_id text NOT NULL,
  batch_id text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (instance_id, batch_id)
);
CREATE INDEX telemetry_batches_received ON telemetry_batches (received_at);

CREATE TABLE telemetry_metric_seconds (
  tenant_id text NOT NULL,
  second bigint NOT NULL,
  agent_id text NOT NULL,
  latency_ms double precision[],
  decision_count double precision,
  blocked_count double precision,
  cost_brl double precision[],
  heartbeat_missed double precision,
  redis_fallbacks double precision,
  PRIMARY KEY (tenant_id, second, agent_id)
);
CREATE INDEX telemetry_metric_seconds_agent ON telemetry_metric_seconds (tenant_id, agent_id, second);
CREATE INDEX telemetry_metric_seconds_second ON telemetry_metric_seconds (second);

CREATE TABLE telemetry_logs (
  tenant_id text NOT NULL,
  id text COLLATE "C" NOT NULL,
  agent_id text NOT NULL,
  at timestamptz NOT NULL,
  entry json NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX telemetry_logs_agent ON telemetry_logs (tenant_id, agent_id, id);
CREATE INDEX telemetry_logs_at ON telemetry_logs (at);

CREATE TABLE telemetry_error_events (
  tenant_id text NOT NULL,
  id text COLLATE "C" NOT NULL,
  issue_id text NOT NULL,
  at timestamptz NOT NULL,
  event json NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX telemetry_error_events_issue ON telemetry_error_events (tenant_id, issue_id, id);
CREATE INDEX telemetry_error_events_at ON telemetry_error_events (at);

CREATE TABLE telemetry_error_issues (
  tenant_id text NOT NULL,
  id text NOT NULL,
  title text NOT NULL,
  level text NOT NULL,
  count bigint NOT NULL,
  first_seen timestamptz NOT NULL,
  last_seen timestamptz NOT NULL,
  agent_id text NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX telemetry_error_issues_recent ON telemetry_error_issues (tenant_id, last_seen DESC, id);
CREATE INDEX telemetry_error_issues_last_seen ON telemetry_error_issues (last_seen);
`,
};
