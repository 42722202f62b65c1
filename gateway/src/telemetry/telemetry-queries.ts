import type { IngestInput } from './telemetry-service.js';
import type { LogPage, LogQuery } from './log-store.js';
import type { MetricName, MetricSeries } from './metric-store.js';
import type { ErrorEvent, ErrorIssue } from './telemetry-records.js';

/**
 * What the telemetry routes read and write (docs/telemetry.md, "Endpoints"), whatever holds it: the embedded
 * gateway's LMDB stores, or the control plane's PostgreSQL (docs/fleet.md, "Telemetry"). The routes check every
 * parameter before calling, so implementations see valid input only.
 */
export interface TelemetryQueries {
  /** How far back `/query/stats` may reach (TELEMETRY_RETENTION_DAYS). */
  readonly retentionMs: number;
  status(): Record<string, unknown>;
  ingest(tenantId: string, input: IngestInput): Promise<{ status: 'ingested'; traceId: string; providers: string[] }>;
  logs(tenantId: string, query: LogQuery): LogPage | Promise<LogPage>;
  stats(tenantId: string, metric: MetricName, from: number, to: number, agentId: string | undefined): MetricSeries | Promise<MetricSeries>;
  issues(tenantId: string, limit: number): Promise<{ data: ErrorIssue[]; total: number }>;
  events(tenantId: string, limit: number, issueId: string | undefined): Promise<{ data: ErrorEvent[] }>;
}
