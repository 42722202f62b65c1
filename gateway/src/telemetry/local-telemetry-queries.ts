import type { MetricStore } from './metric-store.js';
import type { TelemetryQueries } from './telemetry-queries.js';
import type { TelemetryService } from './telemetry-service.js';

/** The embedded gateway's telemetry routes: its own LMDB stores, as before (no work added to a query). */
export function localTelemetryQueries(telemetry: TelemetryService, metrics: MetricStore): TelemetryQueries {
  return {
    get retentionMs() {
      return telemetry.retentionMs;
    },
    status: () => telemetry.status(),
    ingest: (tenantId, input) => telemetry.ingest(tenantId, input),
    // Logs are stored under their redacted agent id: the filter is redacted alike, so the id as sent finds them.
    logs: (tenantId, query) => telemetry.logs.query(tenantId, query.agentId === undefined ? query : { ...query, agentId: telemetry.sanitizer.id(query.agentId) }),
    stats: (tenantId, metric, from, to, agentId) => metrics.query(tenantId, metric, from, to, agentId),
    issues: (tenantId, limit) => telemetry.errors.listIssues(tenantId, limit),
    events: (tenantId, limit, issueId) => telemetry.errors.listEvents(tenantId, limit, issueId),
  };
}
