import type { Migration } from './index.js';

/**
 * Each tenant's routes (docs/routing.md, "Routes in a fleet"), set at the control plane and carried in the bundle to
 * every sidecar, which resolves the credentials they name itself. No row: the tenant never had routes (version 0). A
 * DELETE keeps the row with no spec, so the next routes take the next version. A change bumps the bundle revision.
 */
export const ROUTES_MIGRATION: Migration = {
  id: '008_routes',
  sql: `
CREATE TABLE upstream_routes (
  tenant_id text PRIMARY KEY,
  version integer NOT NULL CHECK (version > 0),
  spec jsonb,
  updated_at timestamptz NOT NULL,
  updated_by text NOT NULL
);
CREATE TRIGGER upstream_routes_rows AFTER INSERT OR UPDATE OR DELETE ON upstream_routes FOR EACH ROW EXECUTE FUNCTION aduana_row_changed('tenant_id');
CREATE TRIGGER upstream_routes_zz_bundle AFTER INSERT OR UPDATE OR DELETE ON upstream_routes FOR EACH ROW EXECUTE FUNCTION aduana_bundle_changed();
`,
};
