import { canonicalJson, isoTime } from '@aduana/shared';
import type { Database } from 'lmdb';
import type { RouteSpec } from './route-spec.js';

/** A tenant's routes in force: what the router compiles. */
export interface StoredRoutes {
  /** 1 for the first routes, one more for every change, a DELETE included. */
  readonly version: number;
  readonly spec: RouteSpec;
  readonly updated_at: string;
  /** The id of the token or login session that changed them. */
  readonly updated_by: string;
}

/**
 * Where a tenant's routes stand, as `GET /v1/routes` shows them: no spec (the default route) with version 0 and no
 * author when they never had any, or with the version and author of the DELETE that removed them.
 */
export interface RoutesState {
  readonly version: number;
  readonly spec: RouteSpec | null;
  readonly updated_at: string | null;
  readonly updated_by: string | null;
}

/** A committed change: the state before and after it; `changed` false when the routes sent were the ones in force. */
export interface RouteChange {
  readonly before: RoutesState;
  readonly after: RoutesState;
  readonly changed: boolean;
}

/** Told of a committed change within the store's one-at-a-time order (the admin action is chained there). */
export type AfterRouteChange = (change: RouteChange) => Promise<void>;

/** A tenant that never had routes: the default route, version 0, no author. */
export const NO_ROUTES: RoutesState = Object.freeze({ version: 0, spec: null, updated_at: null, updated_by: null });

/**
 * Where a tenant's routes are kept: a gateway's LMDB (RouteStore) or the control plane's PostgreSQL (PgRouteStore),
 * behind one routes API. Changes are made one at a time, so each one's `before` is the previous one's `after`.
 */
export interface RouteRepository {
  /** The routes in force for a tenant; null: none (the default route). */
  get(tenantId: string): StoredRoutes | null;
  state(tenantId: string): RoutesState;
  /** Replaces a tenant's routes with validated ones; the same routes again (as canonical JSON) change nothing. */
  put(tenantId: string, spec: RouteSpec, by: string, after?: AfterRouteChange): Promise<RouteChange>;
  /** Removes a tenant's routes (back to the default route); null when it has none. */
  delete(tenantId: string, by: string, after?: AfterRouteChange): Promise<RouteChange | null>;
}

/** The routes a state puts in force; null: none (the default route). What every store's `get` answers. */
export function routesInForce(state: RoutesState): StoredRoutes | null {
  return state.spec === null ? null : (state as StoredRoutes);
}

/** Whether two states name the same routes at the same version (what a sidecar compares a bundle's against). */
export function sameRoutes(a: RoutesState, b: RoutesState): boolean {
  return a.version === b.version && canonicalJson(a.spec) === canonicalJson(b.spec);
}

/**
 * The tenants' routes in LMDB (docs/routing.md), one record per tenant: its spec and version. A DELETE keeps the record
 * without a spec, so the next routes take the next version and no version ever names two different routes. Changes
 * are made one at a time, so each one's `before` is the previous one's `after`, in the store and in the ledger.
 */
export class RouteStore implements RouteRepository {
  /** Called after each committed change that changed something (the router compiles the tenant's routes again). */
  onChange: ((tenantId: string) => void) | null = null;
  #writes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /** The routes in force for a tenant; null: none (the default route). */
  get(tenantId: string): StoredRoutes | null {
    return routesInForce(this.state(tenantId));
  }

  state(tenantId: string): RoutesState {
    return (this.db.get(tenantId) as RoutesState | undefined) ?? NO_ROUTES;
  }

  /** Every tenant with routes in force, for a router that compiles them all at start. */
  *all(): Generator<[string, StoredRoutes]> {
    for (const { key, value } of this.db.getRange({})) {
      const state = value as RoutesState;
      if (state.spec !== null) yield [key as string, state as StoredRoutes];
    }
  }

  /** Replaces a tenant's routes with validated ones; the same routes again (as canonical JSON) change nothing. */
  put(tenantId: string, spec: RouteSpec, by: string, after?: AfterRouteChange): Promise<RouteChange> {
    return this.#serial(async () => {
      const before = this.state(tenantId);
      if (before.spec !== null && canonicalJson(before.spec) === canonicalJson(spec)) return { before, after: before, changed: false };
      return this.#commit(tenantId, before, spec, by, after);
    });
  }

  /** Removes a tenant's routes (back to the default route); null when it has none. */
  delete(tenantId: string, by: string, after?: AfterRouteChange): Promise<RouteChange | null> {
    return this.#serial(async () => {
      const before = this.state(tenantId);
      if (before.spec === null) return null;
      return this.#commit(tenantId, before, null, by, after);
    });
  }

  async #commit(tenantId: string, before: RoutesState, spec: RouteSpec | null, by: string, after: AfterRouteChange | undefined): Promise<RouteChange> {
    const next: RoutesState = { version: before.version + 1, spec, updated_at: isoTime(this.now()), updated_by: by };
    await this.db.put(tenantId, next);
    this.onChange?.(tenantId);
    const change = { before, after: next, changed: true };
    await after?.(change);
    return change;
  }

  #serial<T>(run: () => Promise<T>): Promise<T> {
    const done = this.#writes.then(run);
    this.#writes = done.catch(() => undefined);
    return done;
  }
}
