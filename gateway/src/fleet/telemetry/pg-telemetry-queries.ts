import { newId } from '@aduana/shared';
import { Sanitizer } from '../../telemetry/sanitizer.js';
import type { TelemetryQueries } from '../../telemetry/telemetry-queries.js';
import { isErrorLevel } from '../../telemetry/telemetry-records.js';
import type { PgTelemetryStore } from './pg-telemetry-store.js';

/**
 * The control plane's telemetry routes (docs/fleet.md, "Telemetry"): queries over what the sidecars shipped. Ingest
 * there stores the log directly (redacted here, as a sidecar would), for a client that talks to the control plane;
 * nothing is forwarded from the control plane (forwarders run at each sidecar), so `providers` is always empty.
 */
export function pgTelemetryQueries(store: PgTelemetryStore, retentionDays: number, sanitizer = new Sanitizer()): TelemetryQueries {
  return {
    retentionMs: retentionDays * 86_400_000,
    status: () => ({
      mode: 'fleet-control-plane',
      providers: { logs_provider: 'DISABLED', errors_provider: 'DISABLED' },
      sanitization: 'pii-redacted',
      retention_days: retentionDays,
      queues: {},
      latency_ms: 0,
      source: 'shipped by sidecars (POST /v1/fleet/telemetry); forwarding to OTLP and Sentry happens at each sidecar',
    }),
    async ingest(tenantId, input) {
      const timestamp = new Date().toISOString();
      const message = sanitizer.text(input.log.message);
      const attributes = sanitizer.value(input.log.attributes ?? {}) as Record<string, unknown>;
      const common = { tenant_id: tenantId, timestamp, message, agent_id: input.agentId, trace_id: input.traceId };
      await store.storeItems({
        metrics: [],
        logs: [{ ...common, id: newId('log'), level: input.log.level, attributes }],
        errors: isErrorLevel(input.log.level) ? [{ ...common, id: newId('err'), level: input.log.level, rule_id: '' }] : [],
      });
      return { status: 'ingested', traceId: input.traceId, providers: [] };
    },
    logs: (tenantId, query) => store.logs(tenantId, query),
    stats: (tenantId, metric, from, to, agentId) => store.stats(tenantId, metric, from, to, agentId),
    issues: (tenantId, limit) => store.issues(tenantId, limit),
    events: (tenantId, limit, issueId) => store.events(tenantId, limit, issueId),
  };
}
