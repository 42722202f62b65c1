import type { Provider } from '../wire/wire-formats.js';
import { Breaker } from './breaker.js';
import type { ModelTargetSpec, RouteSpec, TargetSpec } from './route-spec.js';
import { ROUTE_DEFAULTS } from './route-schema.js';

/** The wire-format families whose targets can serve each other's calls (translation between families is not done). */
export type Family = 'openai' | 'anthropic' | 'gemini';

export function familyOf(provider: Provider): Family {
  return provider === 'azure' ? 'openai' : provider;
}


/** One target as compiled: its pool, its credentials in rotation, its breaker and each credential's rest. */
export interface RoutedTarget<C = unknown> {
  readonly name: string;
  readonly provider: Provider;
  readonly family: Family;
  readonly client: C;
  readonly credentials: readonly string[];
  readonly deployments: Readonly<Record<string, string>>;
  readonly apiVersion: string;
  readonly breaker: Breaker;
  /**
   * A credential the provider refused (401/403) or throttled (429 with Retry-After) rests until then (ms): a plain
   * time, not a breaker, so no trial can leave it stuck; it is back in rotation the moment its rest is over.
   */
  readonly rested: Map<string, number>;
  /** The next credential to use (round robin). */
  turn: number;
  /** Its credentials' secrets as last opened, and when (the router reads them again after a few seconds). */
  readonly secrets: Map<string, { readonly secret: string; readonly at: number }>;
}

export interface RouteChoice<C = unknown> {
  readonly target: RoutedTarget<C>;
  /** The model the target is asked for; null: the name the agent gave. */
  readonly model: string | null;
  readonly weight: number;
}

export interface ModelPlan<C = unknown> {
  readonly name: string;
  readonly strategy: 'fallback' | 'weighted';
  /** The wire families its targets speak: a call of another is served only by translation (docs/translation.md). */
  readonly families: ReadonlySet<Family>;
  readonly choices: readonly RouteChoice<C>[];
}

export interface RetryPlan {
  readonly attempts: number;
  readonly statuses: ReadonlySet<number>;
  readonly onConnect: boolean;
  readonly onTimeout: boolean;
  readonly baseMs: number;
  readonly maxMs: number;
  readonly retryAfterCapMs: number;
}

export interface Timeouts {
  readonly connectMs: number;
  readonly firstByteMs: number;
  readonly idleStreamMs: number;
}

/** A tenant's routes compiled once per change: the per-call work is a map lookup and a pick. */
export interface RoutePlan<C = unknown> {
  readonly version: number;
  readonly models: ReadonlyMap<string, ModelPlan<C>>;
  readonly retry: RetryPlan;
  readonly timeouts: Timeouts;
  /** How long a credential the provider refused rests (the breaker's `open_s`). */
  readonly restMs: number;
}

/**
 * Compiles a validated spec. `client` makes (or shares) the pool a target's calls go over, with the route's timeouts.
 */
export function compileRoutes<C>(spec: RouteSpec, version: number, client: (target: TargetSpec, timeouts: Timeouts) => C): RoutePlan<C> {
  const t = { ...ROUTE_DEFAULTS.timeouts_ms, ...spec.timeouts_ms };
  const timeouts: Timeouts = { connectMs: t.connect, firstByteMs: t.first_byte, idleStreamMs: t.idle_stream };
  const b = { ...ROUTE_DEFAULTS.breaker, ...spec.breaker };
  const failures = b.consecutive_failures;
  const openMs = b.open_s * 1000;
  const targets = new Map<string, RoutedTarget<C>>();
  for (const [name, ts] of Object.entries(spec.targets)) {
    targets.set(name, {
      name,
      provider: ts.provider,
      family: familyOf(ts.provider),
      client: client(ts, timeouts),
      credentials: ts.credentials ?? (ts.credential ? [ts.credential] : []),
      deployments: ts.deployments ?? {},
      apiVersion: ts.api_version ?? ROUTE_DEFAULTS.azureApiVersion,
      breaker: new Breaker(failures, openMs),
      rested: new Map(),
      turn: 0,
      secrets: new Map(),
    });
  }
  const models = new Map<string, ModelPlan<C>>();
  for (const [name, ms] of Object.entries(spec.models ?? {})) {
    const choices = ms.targets.map((entry): RouteChoice<C> => {
      const e: ModelTargetSpec = typeof entry === 'string' ? { target: entry } : entry;
      const target = targets.get(e.target);
      // Validation refused a route naming an unknown target before it was stored.
      if (target === undefined) throw new Error(`route ${name}: unknown target ${e.target}`);
      return { target, model: e.model ?? null, weight: e.weight ?? 1 };
    });
    models.set(name, { name, strategy: ms.strategy, families: new Set(choices.map((c) => c.target.family)), choices });
  }
  const d = ROUTE_DEFAULTS.retry;
  const r = spec.retry ?? {};
  const on = r.on ?? d.on;
  const retry: RetryPlan = {
    attempts: r.attempts ?? d.attempts,
    statuses: new Set(on.filter((x): x is number => typeof x === 'number')),
    onConnect: on.includes('connect'),
    onTimeout: on.includes('timeout'),
    baseMs: r.backoff_ms?.base ?? d.backoff_ms.base,
    maxMs: r.backoff_ms?.max ?? d.backoff_ms.max,
    retryAfterCapMs: (r.respect_retry_after_s ?? d.respect_retry_after_s) * 1000,
  };
  return { version, models, retry, timeouts, restMs: openMs };
}

/**
 * The order in which a call tries a model's targets: `fallback` in the route's order; `weighted` one drawn by weight
 * first, then the others by weight among those left. Targets whose breaker is open go last (tried only when all are).
 * A fallback route (or a route of one target) whose breakers are all closed is the compiled order itself: nothing is
 * allocated on the path most calls take.
 */
export function attemptOrder<C>(plan: ModelPlan<C>, now: number, random: () => number = Math.random): readonly RouteChoice<C>[] {
  const order = plan.strategy === 'fallback' || plan.choices.length === 1 ? plan.choices : drawnByWeight(plan.choices, random);
  let open = 0;
  for (const c of order) if (c.target.breaker.isOpen(now)) open++;
  if (open === 0 || open === order.length) return order;
  return [...order.filter((c) => !c.target.breaker.isOpen(now)), ...order.filter((c) => c.target.breaker.isOpen(now))];
}

function drawnByWeight<C>(choices: readonly RouteChoice<C>[], random: () => number): RouteChoice<C>[] {
  const left = choices.slice();
  const order: RouteChoice<C>[] = [];
  while (left.length > 0) {
    const total = left.reduce((a, c) => a + c.weight, 0);
    let x = random() * total;
    let i = 0;
    for (; i < left.length - 1; i++) {
      x -= (left[i] as RouteChoice<C>).weight;
      if (x < 0) break;
    }
    order.push(left.splice(i, 1)[0] as RouteChoice<C>);
  }
  return order;
}

/** The next credential of a target not resting, in rotation; null: the target names none (the caller's key goes). */
export function nextCredential(target: RoutedTarget, now: number): string | null | undefined {
  const n = target.credentials.length;
  if (n === 0) return null;
  for (let i = 0; i < n; i++) {
    const name = target.credentials[(target.turn + i) % n] as string;
    const until = target.rested.get(name);
    if (until === undefined || now >= until) {
      target.turn = (target.turn + i + 1) % n;
      return name;
    }
  }
  // Every credential rests: the target cannot be called now.
  return undefined;
}
