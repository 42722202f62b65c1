import type { Registry } from 'prom-client';
import { BucketHistogram, type BucketSeries } from './bucket-histogram.js';
import type { ExportQueue } from './exporters/export-queue.js';

export interface PrometheusSources {
  /** Entries in the ledger, all tenants (read at scrape time). */
  ledgerSize(): number;
  /** The forwarders whose queues are reported (read at scrape time). */
  queues(): readonly ExportQueue<unknown>[];
  /** With shared limits (REDIS_URL): times the local limits stood in for Redis, and whether Redis is connected. */
  sharedLimits?: () => { fallbacks: Readonly<Record<'rate_limit' | 'spend' | 'rate_policy', number>>; connected: boolean } | null;
}

/** One scrape: the exposition text and its media type. */
export interface PrometheusScrape {
  text: string;
  contentType: string;
}

/**
 * `GET /v1/telemetry/metrics` (docs/telemetry.md, "Prometheus"): prom-client with its own registry (never the global
 * one). Process-wide figures without tenant or agent labels; per-tenant figures are /v1/telemetry/query/stats. The
 * request path adds to plain counters and bucket arrays, handed to prom-client when scraped (no label hashing per
 * decision). prom-client itself is loaded at the first scrape: a gateway nobody scrapes (a sidecar reporting to its
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
  // Decisions and upstream errors are counted in plain Maps and handed to prom-client at scrape time.
  readonly #verdicts = new Map<string, number>();
  readonly #rules = new Map<string, number>();
  readonly #upstreamErrors = new Map<string, number>();

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
    for (const v of ['ALLOW', 'DENY', 'REQUIRE_APPROVAL', 'ESCALATE']) this.#verdicts.set(v, 0);
  }

  /** The registry, built once: prom-client loaded, every metric registered, default process metrics started. */
  #load(): Promise<Registry> {
    this.#registry ??= import('prom-client').then(({ collectDefaultMetrics, Counter, Gauge, Registry }) => {
      const registry = new Registry();
      const registers = [registry];
      const sources = this.#sources;
      collectDefaultMetrics({ register: registry, prefix: 'aduana_' });
      this.#requestDuration.registerWith(registry);
      // Counted in a Map on the request path; handed to prom-client as a counter at each scrape.
      const mapCounter = (name: string, help: string, label: string, counts: ReadonlyMap<string, number>): void => {
        new Counter({
          name,
          help,
          labelNames: [label],
          registers,
          collect() {
            this.reset();
            for (const [value, n] of counts) this.inc({ [label]: value }, n);
          },
        });
      };
      mapCounter('aduana_decisions_total', 'Decisions (decide and proxied calls) by verdict', 'verdict', this.#verdicts);
      mapCounter('aduana_blocks_total', 'Decisions other than ALLOW by rule (policy id, agent_suspended)', 'rule', this.#rules);
      mapCounter('aduana_upstream_errors_total', 'Proxied calls the upstream failed, by outcome', 'outcome', this.#upstreamErrors);
      this.#ledgerAppend.registerWith(registry);
      new Gauge({
        name: 'aduana_ledger_entries',
        help: 'Entries in the ledger, all tenants',
        registers,
        collect() {
          this.set(sources.ledgerSize());
        },
      });
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

  decision(verdict: string, rule: string): void {
    this.#verdicts.set(verdict, (this.#verdicts.get(verdict) ?? 0) + 1);
    if (verdict !== 'ALLOW') this.#rules.set(rule, (this.#rules.get(rule) ?? 0) + 1);
  }

  upstreamError(outcome: string): void {
    this.#upstreamErrors.set(outcome, (this.#upstreamErrors.get(outcome) ?? 0) + 1);
  }

  ledgerAppended(seconds: number): void {
    this.#ledgerAppendSeries.observe(seconds);
  }

  async scrape(): Promise<PrometheusScrape> {
    const registry = await this.#load();
    return { text: await registry.metrics(), contentType: registry.contentType };
  }
}
