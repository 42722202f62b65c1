import { newId } from '@aduana/shared';
import { Sanitizer, sanitizeLog } from '../../telemetry/sanitizer.js';
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
      const log = sanitizeLog(input, sanitizer);
      const common = { tenant_id: tenantId, timestamp, message: log.message, agent_id: log.agentId, trace_id: log.traceId };
      await store.storeItems({
        metrics: [],
        logs: [{ ...common, id: newId('log'), level: input.log.level, attributes: log.attributes }],
        errors: isErrorLevel(input.log.level) ? [{ ...common, id: newId('err'), level: input.log.level, rule_id: log.ruleId }] : [],
      });
      return { status: 'ingested', traceId: input.traceId, providers: [] };
    },
    // Ids are stored redacted: the filter as sent finds them.
    logs: (tenantId, query) => store.logs(tenantId, query.agentId === undefined ? query : { ...query, agentId: sanitizer.id(query.agentId) }),
    stats: (tenantId, metric, from, to, agentId) => store.stats(tenantId, metric, from, to, agentId),
    issues: (tenantId, limit) => store.issues(tenantId, limit),
    events: (tenantId, limit, issueId) => store.events(tenantId, limit, issueId),
  };
}
