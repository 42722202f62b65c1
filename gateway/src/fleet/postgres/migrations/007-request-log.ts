import type { Migration } from './index.js';

/**
 * Each tenant's sampled request log settings (docs/console.md, "Request log"), set at the control plane and carried
 * in the bundle to every sidecar, which samples with its own REQUEST_LOG_KEY and keeps the samples. No row: the
 * default (off). A change bumps the bundle revision.
 */
export const REQUEST_LOG_MIGRATION: Migration = {
  id: '007_request_log',
  sql: `
CREATE TABLE request_log_settings (
  tenant_id text PRIMARY KEY,
  enabled boolean NOT NULL,
  sample_rate double precision NOT NULL CHECK (sample_rate > 0 AND sample_rate <= 1),
  retention_days integer NOT NULL CHECK (retention_days BETWEEN 1 AND 365),
  updated_at timestamptz NOT NULL,
  updated_by text NOT NULL
);
CREATE TRIGGER request_log_settings_rows AFTER INSERT OR UPDATE OR DELETE ON request_log_settings FOR EACH ROW EXECUTE FUNCTION aduana_row_changed('tenant_id');
CREATE TRIGGER request_log_settings_zz_bundle AFTER INSERT OR UPDATE OR DELETE ON request_log_settings FOR EACH ROW EXECUTE FUNCTION aduana_bundle_changed();
`,
};
