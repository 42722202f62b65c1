import type { Migration } from './index.js';

/**
 * A tenant's last plan change (`aduana tenant set-plan`, `PUT /admin/tenants/{id}/plan`): from, to, who and when, as
 * JSON. It travels in the bundle with the tenant, and each sidecar chains it in its own ledger when it takes the new
 * plan (docs/fleet.md, "The bundle"): the control plane has no chain of its own to record it in.
 */
export const PLAN_CHANGED_MIGRATION: Migration = {
  id: '006_plan_changed',
  sql: `
ALTER TABLE tenants ADD COLUMN plan_changed jsonb;
`,
};
