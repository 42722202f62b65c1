import type { ObservedRoute } from '../governance/audit-trail.js';

/**
 * The most (target, model) pairs one tenant's route counters keep: a tenant's routes bound them (targets and models
 * are its routes' names), but every version of its routes adds its own. Past it, new pairs are counted under
 * `OVERFLOW` as target and model.
 */
export const ROUTE_SERIES_MAX = 256;
/** The label value past the cap: no target or model name can start with `_` (the routes' schema). */
export const OVERFLOW = '_other';

/** One (target, model) pair's counts. */
export interface RoutePairCounts {
  /** Attempts by outcome (`ok`, `4xx`, `429`, `5xx` or the failure kind). */
  readonly outcomes: Map<string, number>;
  /** Calls answered here after an attempt on another target. */
  fallbacks: number;
}

/** One tenant's route counts: target -> model -> counts, and the targets whose breakers opened. */
interface TenantRoutes {
  readonly targets: Map<string, Map<string, RoutePairCounts>>;
  pairs: number;
  /** target -> until when its breaker is open (ms since the epoch), since the tenant's routes last changed. */
  readonly breakers: Map<string, number>;
}

/** An attempt's outcome label: one of a bounded set (the failure kinds are the router's). */
function outcomeOf(a: ObservedRoute['attempts'][number]): string {
  if (a.error !== undefined) return a.error;
  const s = a.status ?? 0;
  if (s < 400) return 'ok';
  if (s === 429) return '429';
  return s < 500 ? '4xx' : '5xx';
}

/**
 * What tenants' routes did since start (docs/telemetry.md, "Prometheus"): attempts by target, model and outcome, the
 * calls a fallback target answered, and the breakers open now. Fed from the audit trail's observers (a routed call's
 * ledger attempts, whichever thread served it) and from the routers' breaker notices; read by the Prometheus scrape
 * and the OTLP collection. Counting an attempt is map lookups and an add: nothing is allocated once its series exists.
 */
export class RouteMetrics {
  readonly #tenants = new Map<string, TenantRoutes>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** A routed call's attempts, as its ledger entry lists them. */
  call(tenantId: string, route: ObservedRoute): void {
    const attempts = route.attempts;
    if (attempts.length === 0) return;
    const t = this.#tenant(tenantId);
    for (let i = 0; i < attempts.length; i++) {
      const a = attempts[i] as ObservedRoute['attempts'][number];
      const pair = this.#pair(t, a.target, a.model);
      const outcome = outcomeOf(a);
      pair.outcomes.set(outcome, (pair.outcomes.get(outcome) ?? 0) + 1);
    }
    // The answer relayed is the last attempt's; a fallback when the call had first tried another target.
    const last = attempts[attempts.length - 1] as ObservedRoute['attempts'][number];
    if (route.target !== '' && route.target !== (attempts[0] as ObservedRoute['attempts'][number]).target) this.#pair(t, last.target, last.model).fallbacks++;
  }

  /** A router opened a target's breaker until `untilMs` (each thread's router keeps its own: the latest wins). */
  breakerOpened(tenantId: string, target: string, untilMs: number): void {
    const breakers = this.#tenant(tenantId).breakers;
    if (untilMs > (breakers.get(target) ?? 0)) breakers.set(target, untilMs);
  }

  /** The tenant's routes changed: its breakers start closed (its counts stay: counters only go up). */
  routesChanged(tenantId: string): void {
    this.#tenants.get(tenantId)?.breakers.clear();
  }

  /** Tenants with route series. */
  tenants(): IterableIterator<string> {
    return this.#tenants.keys();
  }

  /** Each (target, model) pair's counts of the tenant. */
  *pairs(tenantId: string): Generator<readonly [string, string, RoutePairCounts]> {
    const t = this.#tenants.get(tenantId);
    if (t === undefined) return;
    for (const [target, models] of t.targets) for (const [model, counts] of models) yield [target, model, counts];
  }

  /** Each target of the tenant that was attempted or whose breaker opened: 1 while its breaker is open now, else 0. */
  *breakers(tenantId: string): Generator<readonly [string, 0 | 1]> {
    const t = this.#tenants.get(tenantId);
    if (t === undefined) return;
    const now = this.#now();
    for (const [target, until] of t.breakers) yield [target, until > now ? 1 : 0];
    for (const target of t.targets.keys()) if (!t.breakers.has(target) && target !== OVERFLOW) yield [target, 0];
  }

  #tenant(tenantId: string): TenantRoutes {
    let t = this.#tenants.get(tenantId);
    if (t === undefined) {
      t = { targets: new Map(), pairs: 0, breakers: new Map() };
      this.#tenants.set(tenantId, t);
    }
    return t;
  }

  #pair(t: TenantRoutes, target: string, model: string): RoutePairCounts {
    const held = t.targets.get(target)?.get(model);
    if (held !== undefined) return held;
    const full = t.pairs >= ROUTE_SERIES_MAX;
    const name = full ? OVERFLOW : target;
    let models = t.targets.get(name);
    if (models === undefined) t.targets.set(name, (models = new Map()));
    const key = full ? OVERFLOW : model;
    let pair = models.get(key);
    if (pair === undefined) {
      pair = { outcomes: new Map(), fallbacks: 0 };
      models.set(key, pair);
      if (!full) t.pairs++;
    }
    return pair;
  }
}
