import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { BucketHistogram, type BucketSeries } from './bucket-histogram.js';
import type { ExportQueue } from './exporters/export-queue.js';

export interface PrometheusSources {
  /** Entries in the ledger, all tenants (read at scrape time). */
  ledgerSize(): number;
  /** The forwarders whose queues are reported (read at scrape time). */
  queues(): readonly ExportQueue<unknown>[];
  /** With shared limits (REDIS_URL): times the local limits stood in for Redis, and whether Redis is connected. */
  sharedLimits?: () => { fallbacks: Readonly<Record<'rate_limit' | 'spend', number>>; connected: boolean } | null;
}

/**
 * `GET /v1/telemetry/metrics` (docs/telemetry.md, "Prometheus"): prom-client with its own registry (never the global
 * one). Process-wide figures without tenant or agent labels; per-tenant figures are /v1/telemetry/query/stats. The
 * request path adds to plain counters and bucket arrays, handed to prom-client when scraped (no label hashing per
 * decision).
 */
export class PrometheusMetrics {
  readonly registry = new Registry();
  readonly #requestDuration: BucketHistogram;
  readonly #upstreamErrors: Counter;
  readonly #ledgerAppend: BucketSeries;
  #proxySteps: BucketHistogram | undefined;
  // Decisions are counted in plain Maps and handed to prom-client at scrape time: no label hashing per decision.
  readonly #verdicts = new Map<string, number>();
  readonly #rules = new Map<string, number>();

  constructor(sources: PrometheusSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'aduana_' });
    this.#requestDuration = new BucketHistogram({
      name: 'aduana_http_request_duration_seconds',
      help: 'Time from request to answer, by server (gateway, auth)',
      labelName: 'server',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registry: this.registry,
    });
    const verdicts = this.#verdicts;
    const rules = this.#rules;
    new Counter({
      name: 'aduana_decisions_total',
      help: 'Decisions (decide and proxied calls) by verdict',
      labelNames: ['verdict'],
      registers,
      collect() {
        this.reset();
        for (const [verdict, n] of verdicts) this.inc({ verdict }, n);
      },
    });
    new Counter({
      name: 'aduana_blocks_total',
      help: 'Decisions other than ALLOW by rule (policy id, agent_suspended)',
      labelNames: ['rule'],
      registers,
      collect() {
        this.reset();
        for (const [rule, n] of rules) this.inc({ rule }, n);
      },
    });
    this.#upstreamErrors = new Counter({ name: 'aduana_upstream_errors_total', help: 'Proxied calls the upstream failed, by outcome', labelNames: ['outcome'], registers });
    this.#ledgerAppend = new BucketHistogram({
      name: 'aduana_ledger_append_seconds',
      help: 'Time from a decision entry being queued to its group commit being flushed',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registry: this.registry,
    }).series();
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
        help: 'Plan admissions (rate_limit) and spend updates (spend) counted locally because Redis was unreachable',
        labelNames: ['kind'],
        registers,
        collect() {
          this.reset();
          const s = shared();
          if (s) for (const kind of ['rate_limit', 'spend'] as const) this.inc({ kind }, s.fallbacks[kind]);
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
    for (const v of ['ALLOW', 'DENY', 'REQUIRE_APPROVAL', 'ESCALATE']) this.#verdicts.set(v, 0);
  }

  /**
   * The proxy's per-step histogram (PROXY_STEP_TIMINGS): made on first use, so a gateway without the setting exposes
   * no such series. The time each step ran until it returned is observed under `step`; when it returned a promise
   * (the body, the upstream), the time that took under `<step>.wait`.
   */
  proxyStepTimes(): BucketHistogram {
    return (this.#proxySteps ??= new BucketHistogram({
      name: 'aduana_proxy_step_seconds',
      help: 'Wall time of each step of a proxied call (PROXY_STEP_TIMINGS); <step>.wait is the time a step waited',
      labelName: 'step',
      buckets: [0.000005, 0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1, 5],
      registry: this.registry,
    }));
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
    this.#upstreamErrors.labels(outcome).inc();
  }

  ledgerAppended(seconds: number): void {
    this.#ledgerAppend.observe(seconds);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
