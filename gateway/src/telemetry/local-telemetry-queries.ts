import type { AnchorStats } from '../ledger/index.js';
import type { MetricStore } from './metric-store.js';
import type { TelemetryQueries } from './telemetry-queries.js';
import type { TelemetryService } from './telemetry-service.js';

/**
 * The embedded gateway's telemetry routes: its own LMDB stores, as before (no work added to a query). Its status adds
 * `anchoring`, the checkpoint time-stamping's state (DISABLED without ANCHOR_TSA_URL).
 */
export function localTelemetryQueries(telemetry: TelemetryService, metrics: MetricStore, anchoring: () => AnchorStats | null = () => null): TelemetryQueries {
  return {
    get retentionMs() {
      return telemetry.retentionMs;
    },
    status: () => ({ ...telemetry.status(), anchoring: anchoring() ?? { status: 'DISABLED' } }),
    ingest: (tenantId, input) => telemetry.ingest(tenantId, input),
    // Logs are stored under their redacted agent id: the filter is redacted alike, so the id as sent finds them.
    logs: (tenantId, query) => telemetry.logs.query(tenantId, query.agentId === undefined ? query : { ...query, agentId: telemetry.sanitizer.id(query.agentId) }),
    stats: (tenantId, metric, from, to, agentId) => metrics.query(tenantId, metric, from, to, agentId),
    issues: (tenantId, limit) => telemetry.errors.listIssues(tenantId, limit),
    events: (tenantId, limit, issueId) => telemetry.errors.listEvents(tenantId, limit, issueId),
  };
}
