import type { BundledResolution } from '../bundle/bundle-format.js';
import type { TableSpec } from './mirrored-table.js';
import type { TableMirror } from './table-mirror.js';

/** A resolution as the mirror holds it: what a bundle carries, with its tenant and time (Unix ms) to filter on. */
export interface ResolutionRow extends BundledResolution {
  tenant_id: string;
  at: number;
}

/** The longest FLEET_BUNDLE_RESOLUTIONS_WINDOW_S may be: what the mirror loads at start. */
export const MAX_RESOLUTIONS_WINDOW_S = 7 * 86_400;

const RECORD = `jsonb_build_object('tenant_id', tenant_id, 'decision_id', decision_id, 'chain_id', chain_id,
  'resolution', jsonb_build_object('status', status, 'note', note, 'resolved_by', resolved_by, 'resolved_at', to_char(resolved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
  'at', (extract(epoch FROM resolved_at) * 1000)::bigint)`;

export const RESOLUTIONS: TableSpec<ResolutionRow> = {
  table: 'decision_resolutions',
  selectAll: `SELECT tenant_id || '/' || decision_id AS key, ${RECORD} AS rec FROM decision_resolutions WHERE resolved_at > now() - interval '${MAX_RESOLUTIONS_WINDOW_S} seconds'`,
  selectOne: `SELECT tenant_id || '/' || decision_id AS key, ${RECORD} AS rec FROM decision_resolutions WHERE tenant_id = $1 AND decision_id = $2`,
  groupOf: (r) => r.tenant_id,
};

/**
 * Recent resolutions of held decisions, in memory on every control-plane replica (mirrored like the other tables,
 * so a bundle is built without a query): what bundles carry to the sidecar that made each decision.
 */
export class PgDecisionResolutions {
  constructor(private readonly mirror: TableMirror) {}

  /** The tenant's resolutions made at or after `sinceMs`, newest first, at most `max`. */
  recent(tenantId: string, sinceMs: number, max: number): BundledResolution[] {
    return this.mirror
      .table<ResolutionRow>('decision_resolutions')
      .group(tenantId)
      .filter((r) => r.at >= sinceMs)
      .sort((a, b) => b.at - a.at)
      .slice(0, max)
      .map(({ decision_id, chain_id, resolution }) => ({ decision_id, chain_id, resolution }));
  }
}
