import type pg from 'pg';
import { canonicalJson, isoTime } from '@aduana/shared';
import type { RouteSpec } from '../../proxy/routing/route-spec.js';
import { NO_ROUTES, routesInForce, type AfterRouteChange, type RouteChange, type RouteRepository, type RoutesState, type StoredRoutes } from '../../proxy/routing/route-store.js';
import { withTransaction } from './database.js';
import type { TableSpec } from './mirrored-table.js';
import type { TableMirror } from './table-mirror.js';

const TIME = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const RECORD = `jsonb_build_object('version', version, 'spec', spec, 'updated_at', ${TIME('updated_at')}, 'updated_by', updated_by)`;

export const ROUTES: TableSpec<RoutesState> = {
  table: 'upstream_routes',
  selectAll: `SELECT tenant_id AS key, ${RECORD} AS rec FROM upstream_routes`,
  selectOne: `SELECT tenant_id AS key, ${RECORD} AS rec FROM upstream_routes WHERE tenant_id = $1`,
};

const LOCK = `SELECT version, spec, ${TIME('updated_at')} AS updated_at, updated_by FROM upstream_routes WHERE tenant_id = $1 FOR UPDATE`;

/**
 * The tenants' routes at the control plane (docs/routing.md, "Routes in a fleet"): read from the mirror (a bundle is
 * built without a query), changed in a transaction holding the tenant's row lock, so across replicas each change's
 * `before` is the row it replaced and no version names two different routes. The change is committed, then chained
 * (`after`); one replica's changes are chained in the order made.
 */
export class PgRouteStore implements RouteRepository {
  #writes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly pool: pg.Pool,
    private readonly mirror: TableMirror,
    private readonly now: () => number = Date.now,
  ) {}

  get(tenantId: string): StoredRoutes | null {
    return routesInForce(this.state(tenantId));
  }

  state(tenantId: string): RoutesState {
    return this.mirror.table<RoutesState>(ROUTES.table).get(tenantId) ?? NO_ROUTES;
  }

  put(tenantId: string, spec: RouteSpec, by: string, after?: AfterRouteChange): Promise<RouteChange> {
    return this.#serial(() => this.#change(tenantId, spec, by, after)) as Promise<RouteChange>;
  }

  delete(tenantId: string, by: string, after?: AfterRouteChange): Promise<RouteChange | null> {
    return this.#serial(() => this.#change(tenantId, null, by, after));
  }

  /** One change under the tenant's row lock; null for a DELETE of routes there are none of. */
  async #change(tenantId: string, spec: RouteSpec | null, by: string, after: AfterRouteChange | undefined): Promise<RouteChange | null> {
    const change = await withTransaction(this.pool, async (c): Promise<RouteChange | null> => {
      // A first PUT of two replicas at once: the second one's insert waits on the first's key, then sees its row. The
      // placeholder (no author) stands for "never had routes" and is replaced below, inside this transaction.
      if (spec !== null) await c.query(`INSERT INTO upstream_routes (tenant_id, version, spec, updated_at, updated_by) VALUES ($1, 1, NULL, now(), '') ON CONFLICT (tenant_id) DO NOTHING`, [tenantId]);
      const row = (await c.query<RoutesState>(LOCK, [tenantId])).rows[0];
      const before: RoutesState = row === undefined || row.updated_by === '' ? NO_ROUTES : { version: row.version, spec: row.spec, updated_at: row.updated_at, updated_by: row.updated_by };
      if (spec === null && before.spec === null) return null;
      if (spec !== null && before.spec !== null && canonicalJson(before.spec) === canonicalJson(spec)) return { before, after: before, changed: false };
      const next: RoutesState = { version: before.version + 1, spec, updated_at: isoTime(this.now()), updated_by: by };
      await c.query('UPDATE upstream_routes SET version = $2, spec = $3, updated_at = $4, updated_by = $5 WHERE tenant_id = $1', [
        tenantId,
        next.version,
        spec === null ? null : JSON.stringify(spec),
        next.updated_at,
        by,
      ]);
      return { before, after: next, changed: true };
    });
    if (change === null || !change.changed) return change;
    await this.mirror.apply<RoutesState>(ROUTES.table, tenantId, change.after);
    await after?.(change);
    return change;
  }

  #serial<T>(run: () => Promise<T>): Promise<T> {
    const done = this.#writes.then(run);
    this.#writes = done.catch(() => undefined);
    return done;
  }
}
