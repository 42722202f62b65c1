import type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api';
import { JsonMetricsSerializer } from '@opentelemetry/otlp-transformer';
import type { Resource } from '@opentelemetry/resources';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { Dispatcher } from 'undici';
import { ExportQueue, type ExportQueueOptions } from './export-queue.js';
import type { OtlpTarget } from './otlp-config.js';
import { postBytes } from './post-bytes.js';
import type { RouteMetrics } from '../route-metrics.js';

/** A reader we collect from on our own schedule: the SDK exports nothing by itself (no silent drops in its processors). */
class CollectingReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The five metrics of /v1/telemetry/query/stats as OpenTelemetry instruments (cumulative, attributes tenant_id and
 * agent_id), and the routes' counts (`observeRoutes`), collected every flush into one OTLP/HTTP JSON payload
 * (`POST {endpoint}/v1/metrics`) that waits in our queue. Cumulative totals make a late or retried payload harmless:
 * the next one carries the totals.
 */
export class OtlpMetrics {
  readonly queue: ExportQueue<Uint8Array>;
  readonly #reader = new CollectingReader();
  readonly #provider: MeterProvider;
  readonly decisions: Counter;
  readonly blocked: Counter;
  readonly latency: Histogram;
  readonly cost: Counter;
  readonly missedHeartbeats: Counter;
  readonly #meter: Meter;
  #timer: NodeJS.Timeout | null = null;

  constructor(
    target: OtlpTarget,
    resource: Resource,
    timeoutMs: number,
    queue: Omit<ExportQueueOptions<Uint8Array>, 'name' | 'send' | 'batchMax' | 'sizeOf'>,
    dispatcher?: Dispatcher,
  ) {
    this.#provider = new MeterProvider({ resource, readers: [this.#reader] });
    const meter = this.#provider.getMeter('aduana-gateway');
    this.#meter = meter;
    this.decisions = meter.createCounter('decision.count', { description: 'decisions (decide and proxied calls)' });
    this.blocked = meter.createCounter('decision.blocked_count', { description: 'decisions other than ALLOW' });
    this.latency = meter.createHistogram('decision.latency_ms', { unit: 'ms', description: 'governance time per decision' });
    this.cost = meter.createCounter('budget.cost_brl', { unit: 'BRL', description: 'token cost of proxied calls' });
    this.missedHeartbeats = meter.createCounter('heartbeat.missed_count', { description: 'missed heartbeat intervals' });
    const url = `${target.endpoint}/v1/metrics`;
    this.queue = new ExportQueue<Uint8Array>({
      ...queue,
      name: 'otlp-metrics',
      batchMax: 1,
      // A payload carries every series (tenants × agents): the largest items any forwarder holds.
      sizeOf: (body) => body.byteLength,
      send: (batch) => postBytes(url, 'otlp-metrics', target.headers, batch[0] as Uint8Array, timeoutMs, dispatcher),
    });
  }

  /**
   * The routes' attempts, fallbacks and open breakers (attributes tenant_id, target, model, outcome), read from
   * `routes` at each collection: the request path adds to its counts and never to an instrument.
   */
  observeRoutes(routes: RouteMetrics, tenantAttribute: (tenantId: string) => string): void {
    const meter = this.#meter;
    const attempts = meter.createObservableCounter('route.attempt_count', { description: "routed calls' attempts by target, model and outcome" });
    const fallbacks = meter.createObservableCounter('route.fallback_count', { description: "routed calls answered by a target other than their first attempt's" });
    const open = meter.createObservableGauge('route.breakers_open', { description: "1 while a route target's breaker is open" });
    meter.addBatchObservableCallback(
      (result) => {
        for (const tenantId of routes.tenants()) {
          const tenant_id = tenantAttribute(tenantId);
          for (const [target, model, counts] of routes.pairs(tenantId)) {
            for (const [outcome, n] of counts.outcomes) result.observe(attempts, n, { tenant_id, target, model, outcome });
            result.observe(fallbacks, counts.fallbacks, { tenant_id, target, model });
          }
          for (const [target, isOpen] of routes.breakers(tenantId)) result.observe(open, isOpen, { tenant_id, target });
        }
      },
      [attempts, fallbacks, open],
    );
  }

  start(flushMs: number): void {
    this.queue.start();
    this.#timer = setInterval(() => void this.collect(), flushMs).unref();
  }

  /** Collects the instruments into one payload and queues it (nothing when no data point exists yet). */
  async collect(): Promise<void> {
    const { resourceMetrics } = await this.#reader.collect();
    if (!resourceMetrics.scopeMetrics.some((s) => s.metrics.some((m) => m.dataPoints.length > 0))) return;
    const body = JsonMetricsSerializer.serializeRequest(resourceMetrics);
    if (body) this.queue.push(body);
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.collect().catch(() => undefined);
    await this.queue.close();
    await this.#provider.shutdown().catch(() => undefined);
  }
}

export type { Attributes };
