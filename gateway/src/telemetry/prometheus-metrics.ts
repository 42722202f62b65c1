import type * as PromClient from 'prom-client';
import type { Registry } from 'prom-client';
import { BucketHistogram, type BucketSeries } from './bucket-histogram.js';
import type { ExportQueue } from './exporters/export-queue.js';
import { RouteMetrics } from './route-metrics.js';

export interface PrometheusSources {
  /** Entries in a tenant's ledger (read at scrape time). */
  ledgerSize(tenantId: string): number;
  /** The tenants that have a ledger (read at scrape time). */
  ledgerTenants(): readonly string[];
  /** The forwarders whose queues are reported (read at scrape time). */
  queues(): readonly ExportQueue<unknown>[];
  /** With shared limits (REDIS_URL): times the local limits stood in for Redis, and whether Redis is connected. */
  sharedLimits?: () => { fallbacks: Readonly<Record<'rate_limit' | 'spend' | 'rate_policy', number>>; connected: boolean } | null;
}

/** Whose series a scrape shows: one tenant's (a token of that tenant), or every tenant's (the operator's credential). */
export const EVERY_TENANT = Symbol('every tenant');
export type ScrapeScope = string | typeof EVERY_TENANT;

/** What one tenant's decisions added up to since start: the series that carry tenant data. */
interface TenantCounts {
  verdicts: Map<string, number>;
  rules: Map<string, number>;
  upstreamErrors: Map<string, number>;
}

const VERDICTS = ['ALLOW', 'DENY', 'REQUIRE_APPROVAL', 'ESCALATE'] as const;

/** A tenant that made no decision yet: its verdicts at 0, as every tenant's are before its first. */
const NO_COUNTS: TenantCounts = { verdicts: new Map(VERDICTS.map((v) => [v, 0])), rules: new Map(), upstreamErrors: new Map() };

/** One scrape: the exposition text and its media type. */
export interface PrometheusScrape {
  text: string;
  contentType: string;
}

/**
 * `GET /v1/telemetry/metrics` (docs/telemetry.md, "Prometheus"): prom-client with its own registries (never the global
 * one). Process-wide figures carry no tenant data (latency, the ledger's group commit, forwarders, the shared limits,
 * the process); the series that do (decisions, blocks by policy id, upstream errors, routes, ledger entries) carry a `tenant`
 * label and are shown to a tenant's token for its own tenant alone, to the operator's scrape credential for every
 * tenant: they are built per scrape, for its scope, in a registry of their own. The request path adds to plain counters
 * and bucket arrays, handed to prom-client when scraped (no label hashing per decision). prom-client itself is loaded at the first scrape: a gateway nobody scrapes (a sidecar reporting to its
 * control plane, as a rule) never holds it, about 2.5 MiB of heap with the OpenTelemetry API it loads. Its default
 * process metrics are therefore collected from that first scrape on (CPU and memory read the process's own totals;
 * the garbage-collection and event-loop histograms start counting then).
 */
export class PrometheusMetrics {
  readonly #sources: PrometheusSources;
  readonly #requestDuration: BucketHistogram;
  readonly #ledgerAppend: BucketHistogram;
  readonly #ledgerAppendSeries: BucketSeries;
  #proxySteps: BucketHistogram | undefined;
  #registry: Promise<Registry> | null = null;
  /** The registry once built (the promise above resolved). */
  #built: Registry | null = null;
  /** prom-client, once loaded (by the first scrape). */
  #client: typeof PromClient | null = null;
  // Decisions and upstream errors are counted per tenant in plain Maps and handed to prom-client at scrape time.
  readonly #tenants = new Map<string, TenantCounts>();
  /** Tenants' routes: attempts, fallbacks, open breakers (also read by the OTLP metrics). */
  readonly routes = new RouteMetrics();

  constructor(sources: PrometheusSources) {
    this.#sources = sources;
    this.#requestDuration = new BucketHistogram({
      name: 'aduana_http_request_duration_seconds',
      help: 'Time from request to answer, by server (gateway, auth)',
      labelName: 'server',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    });
    this.#ledgerAppend = new BucketHistogram({
      name: 'aduana_ledger_append_seconds',
      help: 'Time from a decision entry being queued to its group commit being flushed',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    });
    this.#ledgerAppendSeries = this.#ledgerAppend.series();
  }

  /** The registry, built once: prom-client loaded, every metric registered, default process metrics started. */
  #load(): Promise<Registry> {
    this.#registry ??= import('prom-client').then((client) => {
      const { collectDefaultMetrics, Counter, Gauge, Registry } = client;
      this.#client = client;
      const registry = new Registry();
      const registers = [registry];
      const sources = this.#sources;
      collectDefaultMetrics({ register: registry, prefix: 'aduana_' });
      this.#requestDuration.registerWith(registry);
      this.#ledgerAppend.registerWith(registry);
      new Gauge({
        name: 'aduana_telemetry_queue_depth',
        help: 'Items waiting in each forwarder queue',
        labelNames: ['provider'],
        registers,
        collect() {
          for (const q of sources.queues()) this.set({ provider: q.name }, q.depth);
        },
      });
      new Counter({
        name: 'aduana_telemetry_dropped_total',
        help: 'Telemetry items a forwarder dropped, by reason (queue_full, rejected, shutdown)',
        labelNames: ['provider', 'reason'],
        registers,
        collect() {
          this.reset();
          for (const q of sources.queues()) {
            const d = q.stats().dropped;
            for (const reason of ['queue_full', 'rejected', 'shutdown'] as const) this.inc({ provider: q.name, reason }, d[reason]);
          }
        },
      });
      new Counter({
        name: 'aduana_telemetry_sent_total',
        help: 'Telemetry items delivered, by provider',
        labelNames: ['provider'],
        registers,
        collect() {
          this.reset();
          for (const q of sources.queues()) this.inc({ provider: q.name }, q.stats().sent);
        },
      });
      const shared = sources.sharedLimits;
      if (shared) {
        new Counter({
          name: 'aduana_limits_redis_fallbacks_total',
          help: 'Plan admissions (rate_limit), rate_limit policy windows (rate_policy) and spend updates (spend) counted locally because Redis was unreachable',
          labelNames: ['kind'],
          registers,
          collect() {
            this.reset();
            const s = shared();
            if (s) for (const kind of ['rate_limit', 'spend', 'rate_policy'] as const) this.inc({ kind }, s.fallbacks[kind]);
          },
        });
        new Gauge({
          name: 'aduana_limits_redis_connected',
          help: '1 while the shared limits reach Redis, 0 while they are local',
          registers,
          collect() {
            this.set(shared()?.connected ? 1 : 0);
          },
        });
      }
      this.#proxySteps?.registerWith(registry);
      this.#built = registry;
      return registry;
    });
    return this.#registry;
  }

  /**
   * The proxy's per-step histogram (PROXY_STEP_TIMINGS): made on first use, so a gateway without the setting exposes
   * no such series. The time each step ran until it returned is observed under `step`; when it returned a promise
   * (the body, the upstream), the time that took under `<step>.wait`.
   */
  proxyStepTimes(): BucketHistogram {
    if (!this.#proxySteps) {
      const steps = new BucketHistogram({
        name: 'aduana_proxy_step_seconds',
        help: 'Wall time of each step of a proxied call (PROXY_STEP_TIMINGS); <step>.wait is the time a step waited',
        labelName: 'step',
        buckets: [0.000005, 0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1, 5],
      });
      this.#proxySteps = steps;
      // Made after the registry was built: added to it (while it is being built, the build adds it).
      if (this.#built) steps.registerWith(this.#built);
    }
    return this.#proxySteps;
  }

  /** A request answered by `server` after `seconds`. */
  requestDone(server: string, seconds: number): void {
    this.#requestDuration.series(server).observe(seconds);
  }

  #counts(tenantId: string): TenantCounts {
    let t = this.#tenants.get(tenantId);
    if (!t) {
      t = { verdicts: new Map(VERDICTS.map((v) => [v, 0])), rules: new Map(), upstreamErrors: new Map() };
      this.#tenants.set(tenantId, t);
    }
    return t;
  }

  decision(tenantId: string, verdict: string, rule: string): void {
    const t = this.#counts(tenantId);
    t.verdicts.set(verdict, (t.verdicts.get(verdict) ?? 0) + 1);
    if (verdict !== 'ALLOW') t.rules.set(rule, (t.rules.get(rule) ?? 0) + 1);
  }

  upstreamError(tenantId: string, outcome: string): void {
    const t = this.#counts(tenantId);
    t.upstreamErrors.set(outcome, (t.upstreamErrors.get(outcome) ?? 0) + 1);
  }

  ledgerAppended(seconds: number): void {
    this.#ledgerAppendSeries.observe(seconds);
  }

  /** The exposition for `scope`: the process-wide series, then the tenant series of that tenant (or of every tenant). */
  async scrape(scope: ScrapeScope): Promise<PrometheusScrape> {
    const registry = await this.#load();
    const tenants = this.#tenantRegistry(scope);
    return { text: (await registry.metrics()) + (await tenants.metrics()), contentType: registry.contentType };
  }

  /** The series that carry tenant data, for the tenants `scope` may see, in a registry made for this scrape. */
  #tenantRegistry(scope: ScrapeScope): Registry {
    const { Counter, Gauge, Registry } = this.#client as typeof PromClient;
    const registry = new Registry();
    const registers = [registry];
    const ids = scope === EVERY_TENANT ? [...new Set([...this.#tenants.keys(), ...this.#sources.ledgerTenants(), ...this.routes.tenants()])].sort() : [scope];
    const counter = (name: string, help: string, label: string, pick: (t: TenantCounts) => ReadonlyMap<string, number>): void => {
      const c = new Counter({ name, help, labelNames: ['tenant', label], registers });
      for (const tenant of ids) {
        for (const [value, n] of pick(this.#tenants.get(tenant) ?? NO_COUNTS)) c.inc({ tenant, [label]: value }, n);
      }
    };
    counter('aduana_decisions_total', 'Decisions (decide and proxied calls) by tenant and verdict', 'verdict', (t) => t.verdicts);
    counter('aduana_blocks_total', 'Decisions other than ALLOW by tenant and rule (policy id, agent_suspended)', 'rule', (t) => t.rules);
    counter('aduana_upstream_errors_total', 'Proxied calls the upstream failed, by tenant and outcome', 'outcome', (t) => t.upstreamErrors);
    const attempts = new Counter({ name: 'aduana_route_attempts_total', help: "Routed calls' attempts by tenant, target, model asked and outcome (ok, 4xx, 429, 5xx, failure kind)", labelNames: ['tenant', 'target', 'model', 'outcome'], registers });
    const fallbacks = new Counter({ name: 'aduana_route_fallbacks_total', help: "Routed calls answered by a target other than their first attempt's, by tenant, target and model that answered", labelNames: ['tenant', 'target', 'model'], registers });
    const breakers = new Gauge({ name: 'aduana_route_breakers_open', help: "1 while a route target's breaker is open, by tenant and target", labelNames: ['tenant', 'target'], registers });
    for (const tenant of ids) {
      for (const [target, model, counts] of this.routes.pairs(tenant)) {
        for (const [outcome, n] of counts.outcomes) attempts.inc({ tenant, target, model, outcome }, n);
        fallbacks.inc({ tenant, target, model }, counts.fallbacks);
      }
      for (const [target, open] of this.routes.breakers(tenant)) breakers.set({ tenant, target }, open);
    }
    const ledger = new Gauge({ name: 'aduana_ledger_entries', help: "Entries in each tenant's ledger", labelNames: ['tenant'], registers });
    for (const tenant of ids) ledger.set({ tenant }, this.#sources.ledgerSize(tenant));
    return registry;
  }
}
