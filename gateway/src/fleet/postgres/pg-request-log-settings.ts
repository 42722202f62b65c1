import type pg from 'pg';
import { isoTime } from '@aduana/shared';
import type { Actor, RecordAdminAction } from '../../governance/admin-actions.js';
import {
  changedSettings,
  REQUEST_LOG_DEFAULT,
  settingsView,
  type RequestLogChange,
  type RequestLogSettingsSource,
  type StoredRequestLogSettings,
} from '../../request-log/request-log-settings.js';
import { withTransaction } from './database.js';
import type { TableSpec } from './mirrored-table.js';
import type { TableMirror } from './table-mirror.js';

/** A row as the mirror holds it: the settings, with their tenant. */
export interface RequestLogSettingsRow extends StoredRequestLogSettings {
  tenant_id: string;
}

const COLUMNS = `tenant_id, enabled, sample_rate, retention_days, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at, updated_by`;
const RECORD = `jsonb_build_object('tenant_id', tenant_id, 'enabled', enabled, 'sample_rate', sample_rate, 'retention_days', retention_days,
  'updated_at', to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'updated_by', updated_by)`;

export const REQUEST_LOG_SETTINGS: TableSpec<RequestLogSettingsRow> = {
  table: 'request_log_settings',
  selectAll: `SELECT tenant_id AS key, ${RECORD} AS rec FROM request_log_settings`,
  selectOne: `SELECT tenant_id AS key, ${RECORD} AS rec FROM request_log_settings WHERE tenant_id = $1`,
};

const LOCK = `SELECT ${COLUMNS} FROM request_log_settings WHERE tenant_id = $1 FOR UPDATE`;

/**
 * The tenants' request log settings at the control plane (docs/fleet.md, "The bundle"): read from the mirror (a bundle
 * is built without a query), changed in a transaction holding the tenant's row lock, so across replicas each change's
 * `before` is the row it replaced. The change is committed, then chained (as every control-plane change is: the
 * chain's append takes a connection of its own); one replica's changes are chained in the order made, and two replicas
 * changing one tenant at the same instant may chain theirs in either order. The control plane keeps no samples, so it
 * needs no REQUEST_LOG_KEY (`keyed` is null).
 */
export class PgRequestLogSettings implements RequestLogSettingsSource {
  readonly keyed = null;
  /** This replica's changes, one at a time: each is chained before the next starts, so the chain reads in order. */
  #updates: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly pool: pg.Pool,
    private readonly mirror: TableMirror,
  ) {}

  settings(tenantId: string): StoredRequestLogSettings {
    const row = this.mirror.table<RequestLogSettingsRow>('request_log_settings').get(tenantId);
    return row ? stored(row) : REQUEST_LOG_DEFAULT;
  }

  update(tenantId: string, change: RequestLogChange, actor: Actor, traceId: string, onAdminAction: RecordAdminAction): Promise<StoredRequestLogSettings> {
    const run = this.#updates.then(() => this.#update(tenantId, change, actor, traceId, onAdminAction));
    this.#updates = run.catch(() => undefined);
    return run;
  }

  async #update(tenantId: string, change: RequestLogChange, actor: Actor, traceId: string, onAdminAction: RecordAdminAction): Promise<StoredRequestLogSettings> {
    const { before, next } = await withTransaction(this.pool, async (c) => {
      let locked = await c.query<RequestLogSettingsRow>(LOCK, [tenantId]);
      if (!locked.rows[0]) {
        const first = changedSettings(REQUEST_LOG_DEFAULT, change, actor.by, isoTime(Date.now()));
        const inserted = await c.query(
          `INSERT INTO request_log_settings (tenant_id, enabled, sample_rate, retention_days, updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tenant_id) DO NOTHING`,
          [tenantId, first.enabled, first.sample_rate, first.retention_days, first.updated_at, first.updated_by],
        );
        if (inserted.rowCount === 1) return { before: REQUEST_LOG_DEFAULT, next: first };
        // Another replica's first change came in between: it is the one this change follows.
        locked = await c.query<RequestLogSettingsRow>(LOCK, [tenantId]);
      }
      const prev = stored(locked.rows[0]!);
      const updated = changedSettings(prev, change, actor.by, isoTime(Date.now()));
      await c.query('UPDATE request_log_settings SET enabled = $2, sample_rate = $3, retention_days = $4, updated_at = $5, updated_by = $6 WHERE tenant_id = $1', [
        tenantId,
        updated.enabled,
        updated.sample_rate,
        updated.retention_days,
        updated.updated_at,
        updated.updated_by,
      ]);
      return { before: prev, next: updated };
    });
    await this.mirror.apply<RequestLogSettingsRow>('request_log_settings', tenantId, { tenant_id: tenantId, ...next });
    await onAdminAction(tenantId, { actor, action: 'settings.request_log_updated', target: 'request_log', before: settingsView(before), after: settingsView(next) }, traceId);
    return next;
  }
}

function stored(r: StoredRequestLogSettings): StoredRequestLogSettings {
  return { enabled: r.enabled, sample_rate: Number(r.sample_rate), retention_days: Number(r.retention_days), updated_at: r.updated_at, updated_by: r.updated_by };
}
