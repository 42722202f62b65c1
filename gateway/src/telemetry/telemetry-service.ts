import type { Dispatcher } from 'undici';
import { newId, type Logger } from '@aduana/shared';
import type { ObservedRoute } from '../governance/audit-trail.js';
import type { DecisionRecord } from '../governance/decisions/decision-store.js';
import type { AgentRegistry } from '../agents/agent-registry.js';
import { fingerprint, type ErrorStore } from './error-store.js';
import type { ExportQueue, ExportQueueStats, ProviderStatus } from './exporters/export-queue.js';
import { otlpTarget } from './exporters/otlp-config.js';
import type { ForwardedLog } from './exporters/otlp-logs.js';
import type { OtlpMetrics } from './exporters/otlp-metrics.js';
import type { ForwardedError } from './exporters/sentry-errors.js';
import type { LogStore } from './log-store.js';
import type { MetricStore } from './metric-store.js';
import type { PrometheusMetrics } from './prometheus-metrics.js';
import { sanitizeLog, Sanitizer } from './sanitizer.js';
import { isErrorLevel, type ErrorEvent, type LogEntry, type LogLevel } from './telemetry-records.js';

export interface TelemetryOptions {
  otlpEndpoint: string;
  otlpHeaders: string;
  sentryDsn: string;
  queueMax: number;
  queueMaxBytes: number;
  batchMax: number;
  flushMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  exportTimeoutMs: number;
  /** The egress proxy's dispatcher for the forwarders, when one is set (undefined: straight to the collector and tracker). */
  dispatcher?: Dispatcher | undefined;
  retentionDays: number;
  pruneIntervalS: number;
}

export interface IngestInput {
  traceId: string;
  agentId: string;
  log: { level: LogLevel; message: string; attributes?: Record<string, unknown> };
}

/** Fleet mode: hears every stored log and error event (already redacted), so a sidecar ships them. */
export interface TelemetryOutbox {
  onLog(tenantId: string, entry: LogEntry): void;
  onError(tenantId: string, event: ErrorEvent): void;
}

interface Exporters {
  logs: ExportQueue<ForwardedLog> | null;
  metrics: OtlpMetrics | null;
  errors: ExportQueue<ForwardedError> | null;
}

const UPSTREAM_FAILURES: ReadonlySet<string> = new Set(['upstream_error', 'upstream_unavailable', 'upstream_aborted', 'error']);

/**
 * The gateway's telemetry (docs/telemetry.md): fed from the audit trail (every decision), heartbeats and
 * /v1/telemetry/ingest, never from the request path directly. Keeps metric samples, logs and error events per tenant
 * (pruned past the retention), and forwards logs and metrics as OTLP/HTTP and errors as Sentry envelopes, everything
 * PII-redacted first, through bounded queues that never hold up a request.
 */
export class TelemetryService {
  readonly logs: LogStore;
  readonly errors: ErrorStore;
  readonly sanitizer = new Sanitizer();
  readonly #otlpLogs: ExportQueue<ForwardedLog> | null;
  readonly #otlpMetrics: OtlpMetrics | null;
  readonly #sentry: ExportQueue<ForwardedError> | null;
  readonly #queues: ExportQueue<unknown>[];
  #pruneTimer: NodeJS.Timeout | null = null;
  /** Null in the embedded default: nothing is shipped. */
  #outbox: TelemetryOutbox | null = null;
  #pruning: Promise<unknown> = Promise.resolve();

  /** The forwarders a configuration asks for; their packages are loaded only then (memory of a sidecar without them). */
  static async create(
    options: TelemetryOptions,
    stores: { logs: LogStore; errors: ErrorStore },
    metrics: MetricStore,
    prometheus: PrometheusMetrics,
    agents: AgentRegistry,
    logger: Logger,
  ): Promise<TelemetryService> {
    const queue = { maxItems: options.queueMax, maxBytes: options.queueMaxBytes, batchMax: options.batchMax, flushMs: options.flushMs, retryBaseMs: options.retryBaseMs, retryMaxMs: options.retryMaxMs };
    const target = otlpTarget(options.otlpEndpoint, options.otlpHeaders);
    const exporters: Exporters = { logs: null, metrics: null, errors: null };
    if (target) {
      const [{ resourceFromAttributes }, { otlpLogsQueue }, { OtlpMetrics }] = await Promise.all([
        import('@opentelemetry/resources'),
        import('./exporters/otlp-logs.js'),
        import('./exporters/otlp-metrics.js'),
      ]);
      const resource = resourceFromAttributes({ 'service.name': 'aduana-gateway' });
      exporters.logs = otlpLogsQueue(target, resource, options.exportTimeoutMs, queue, options.dispatcher);
      exporters.metrics = new OtlpMetrics(target, resource, options.exportTimeoutMs, queue, options.dispatcher);
    }
    if (options.sentryDsn) {
      const { sentryQueue } = await import('./exporters/sentry-errors.js');
      exporters.errors = sentryQueue(options.sentryDsn, options.exportTimeoutMs, queue, options.dispatcher);
    }
    const service = new TelemetryService(options, stores, metrics, prometheus, agents, logger, exporters);
    // Tenant ids are redacted as everywhere telemetry forwards them.
    exporters.metrics?.observeRoutes(prometheus.routes, (id) => service.sanitizer.id(id));
    return service;
  }

  private constructor(
    private readonly options: TelemetryOptions,
    stores: { logs: LogStore; errors: ErrorStore },
    private readonly metrics: MetricStore,
    private readonly prometheus: PrometheusMetrics,
    private readonly agents: AgentRegistry,
    private readonly logger: Logger,
    exporters: Exporters,
  ) {
    this.logs = stores.logs;
    this.errors = stores.errors;
    this.#otlpLogs = exporters.logs;
    this.#otlpMetrics = exporters.metrics;
    this.#sentry = exporters.errors;
    this.#queues = [this.#otlpLogs, this.#otlpMetrics?.queue ?? null, this.#sentry].filter((q) => q !== null) as ExportQueue<unknown>[];
  }

  get retentionMs(): number {
    return this.options.retentionDays * 86_400_000;
  }

  /** The forwarders' queues (Prometheus reports their depth and drops). */
  queues(): readonly ExportQueue<unknown>[] {
    return this.#queues;
  }

  /** Fleet mode: every log and error event stored from now on is also handed to `outbox`. */
  shipTo(outbox: TelemetryOutbox): void {
    this.#outbox = outbox;
  }

  start(): void {
    this.#otlpLogs?.start();
    this.#otlpMetrics?.start(this.options.flushMs);
    this.#sentry?.start();
    this.#pruneTimer = setInterval(() => {
      this.#pruning = this.prune().catch((err: unknown) => this.logger.error({ err }, 'telemetry prune failed'));
    }, this.options.pruneIntervalS * 1000).unref();
  }

  /**
   * Every recorded decision (an audit-trail observer, on the request path: memory only). Metric samples for
   * /query/stats, Prometheus counters, the agent's risk score, OTLP instruments, a routed call's attempts; an upstream
   * failure is an error event.
   */
  readonly onDecision = (d: DecisionRecord, latencyMs: number, outcome: string | null, costBrl: number, route: ObservedRoute | null): void => {
    const now = Date.now();
    if (costBrl > 0) this.#cost(d.tenant_id, d.agent_id, costBrl, now);
    const blocked = d.execution_status !== 'ALLOW';
    this.metrics.recordDecision(d.tenant_id, d.agent_id, latencyMs, blocked, now);
    this.prometheus.decision(d.tenant_id, d.execution_status, d.rule);
    this.agents.observeRisk(d.tenant_id, d.agent_id, d.risk_score);
    if (route !== null) this.prometheus.routes.call(d.tenant_id, route);
    if (this.#otlpMetrics) {
      const attrs = { tenant_id: this.sanitizer.id(d.tenant_id), agent_id: this.sanitizer.id(d.agent_id) };
      this.#otlpMetrics.decisions.add(1, attrs);
      this.#otlpMetrics.latency.record(latencyMs, attrs);
      if (blocked) this.#otlpMetrics.blocked.add(1, attrs);
    }
    if (outcome !== null && UPSTREAM_FAILURES.has(outcome)) {
      this.prometheus.upstreamError(d.tenant_id, outcome);
      this.#error(d.tenant_id, { level: 'error', message: `proxied call failed: ${outcome}`, agentId: d.agent_id, ruleId: d.rule, traceId: d.trace_id, atMs: now });
    }
  };

  /** A proxied call's cost (BRL). */
  #cost(tenantId: string, agentId: string, brl: number, atMs: number): void {
    this.metrics.record(tenantId, 'budget.cost_brl', agentId, brl, atMs);
    this.#otlpMetrics?.cost.add(brl, { tenant_id: this.sanitizer.id(tenantId), agent_id: this.sanitizer.id(agentId) });
  }

  /** Missed heartbeat intervals counted by the monitor. */
  readonly onMissedHeartbeats = (tenantId: string, agentId: string, missed: number, atMs: number): void => {
    this.metrics.record(tenantId, 'heartbeat.missed_count', agentId, missed, atMs);
    this.#otlpMetrics?.missedHeartbeats.add(missed, { tenant_id: this.sanitizer.id(tenantId), agent_id: this.sanitizer.id(agentId) });
  };

  /** `POST /v1/telemetry/ingest`: redacted, stored (awaited), queued for the providers; error levels are error events too. */
  async ingest(tenantId: string, input: IngestInput): Promise<{ status: 'ingested'; traceId: string; providers: string[] }> {
    const now = Date.now();
    // Ids are redacted where they are kept and forwarded; the answer gives the caller back its own trace id.
    const { message, attributes, agentId, traceId, ruleId } = sanitizeLog(input, this.sanitizer);
    const entry: LogEntry = { id: newId('log'), timestamp: new Date(now).toISOString(), level: input.log.level, message, agentId, traceId, attributes };
    await this.logs.append(tenantId, entry);
    this.#outbox?.onLog(tenantId, entry);
    const providers: string[] = [];
    if (this.#otlpLogs) {
      this.#otlpLogs.push({ atMs: now, level: entry.level, message, attributes: this.#otelAttributes(tenantId, agentId, traceId, attributes) });
      providers.push('otlp');
    }
    if (isErrorLevel(entry.level)) {
      this.#error(tenantId, { level: entry.level, message, agentId, ruleId, traceId, atMs: now }, true);
      if (this.#sentry) providers.push('sentry');
    }
    return { status: 'ingested', traceId: input.traceId, providers };
  }

  /** `GET /v1/telemetry/status`. */
  status(): Record<string, unknown> {
    const provider = (q: ExportQueue<unknown> | null): ProviderStatus => q?.status ?? 'DISABLED';
    const logsQueues = [this.#otlpLogs, this.#otlpMetrics?.queue ?? null];
    const logsStatus: ProviderStatus = logsQueues.every((q) => q === null) ? 'DISABLED' : logsQueues.some((q) => q?.status === 'DEGRADED') ? 'DEGRADED' : 'ACTIVE';
    const queues: Record<string, ExportQueueStats> = {};
    for (const q of this.#queues) queues[q.name] = q.stats();
    return {
      mode: 'sidecar',
      providers: { logs_provider: logsStatus, errors_provider: provider(this.#sentry) },
      sanitization: 'pii-redacted',
      retention_days: this.options.retentionDays,
      queues,
      // The logs forwarder's last delivery round trip (0 before the first): how far away the provider is.
      latency_ms: this.#otlpLogs?.stats().last_latency_ms ?? 0,
    };
  }

  /** Deletes samples, logs and error events past the retention. */
  async prune(now = Date.now()): Promise<number> {
    const before = now - this.retentionMs;
    const n = await this.metrics.prune(Math.floor(before / 1000));
    return n + (await this.logs.prune(before)) + (await this.errors.prune(before));
  }

  async close(): Promise<void> {
    if (this.#pruneTimer) clearInterval(this.#pruneTimer);
    await this.#pruning;
    await Promise.all([this.#otlpLogs?.close(), this.#otlpMetrics?.close(), this.#sentry?.close()]);
    await this.errors.flush();
  }

  /** An error event: stored, shipped and sent to the tracker. `redacted`: its message and ids already are. */
  #error(tenantId: string, e: { level: string; message: string; agentId: string; ruleId: string; traceId: string; atMs: number }, redacted = false): void {
    const clean = redacted ? e : { ...e, message: this.sanitizer.text(e.message), agentId: this.sanitizer.id(e.agentId), traceId: this.sanitizer.text(e.traceId) };
    const event = this.errors.record(tenantId, clean);
    this.#outbox?.onError(tenantId, event);
    this.#sentry?.push({
      atMs: e.atMs,
      level: e.level,
      message: clean.message,
      fingerprint: fingerprint(e.level, e.ruleId, clean.message),
      tags: { tenant_id: this.sanitizer.id(tenantId), agent_id: clean.agentId, trace_id: clean.traceId, issue_id: event.issueId, ...(e.ruleId ? { rule_id: e.ruleId } : {}) },
    });
  }

  /** `agentId` and `traceId` already redacted. */
  #otelAttributes(tenantId: string, agentId: string, traceId: string, attributes: Record<string, unknown>): Record<string, string | number | boolean> {
    const out: Record<string, string | number | boolean> = {};
    for (const [k, v] of Object.entries(attributes)) {
      out[k] = typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : JSON.stringify(v);
    }
    out['tenant_id'] = this.sanitizer.id(tenantId);
    out['agent_id'] = agentId;
    out['trace_id'] = traceId;
    out['sanitization'] = 'pii-redacted';
    return out;
  }
}
