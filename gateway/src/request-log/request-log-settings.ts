import { OwnSchema } from '../platform/gateway-ajv.js';
import type { Actor, RecordAdminAction } from '../governance/admin-actions.js';

/** A tenant's sampled request log (docs/console.md, "Request log"). */
export interface RequestLogSettings {
  readonly enabled: boolean;
  /** The share of proxied calls and MCP tool calls kept, in (0, 1]. */
  readonly sample_rate: number;
  /** Samples older than this many days are deleted (1..365). */
  readonly retention_days: number;
}

/** As stored: who changed it last, and when (null: never changed, the default). */
export interface StoredRequestLogSettings extends RequestLogSettings {
  readonly updated_at: string | null;
  readonly updated_by: string | null;
}

/** Off until an admin turns it on. */
export const REQUEST_LOG_DEFAULT: StoredRequestLogSettings = Object.freeze({ enabled: false, sample_rate: 0.1, retention_days: 30, updated_at: null, updated_by: null });

/** A change: the fields sent replace the current ones, the others stay. */
export type RequestLogChange = Partial<RequestLogSettings>;

export const requestLogChangeSchema = new OwnSchema<RequestLogChange>({
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    enabled: { type: 'boolean' },
    sample_rate: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
    retention_days: { type: 'integer', minimum: 1, maximum: 365 },
  },
});

/** What the ledger's before/after digests cover: the settings themselves, not who changed them. */
export function settingsView(s: RequestLogSettings): RequestLogSettings {
  return { enabled: s.enabled, sample_rate: s.sample_rate, retention_days: s.retention_days };
}

/** The settings after a change made by `by` at `at`: the fields sent replace the current ones, the others stay. */
export function changedSettings(before: RequestLogSettings, change: RequestLogChange, by: string, at: string): StoredRequestLogSettings {
  return {
    enabled: change.enabled ?? before.enabled,
    sample_rate: change.sample_rate ?? before.sample_rate,
    retention_days: change.retention_days ?? before.retention_days,
    updated_at: at,
    updated_by: by,
  };
}

/**
 * Where a tenant's settings are read and changed: a gateway's own request log (LMDB), or a control plane's table
 * (PostgreSQL), which keeps no samples and whose sidecars take the settings from their bundle (docs/fleet.md).
 */
export interface RequestLogSettingsSource {
  settings(tenantId: string): StoredRequestLogSettings;
  /** Applies a validated change and chains it (`settings.request_log_updated`) through `onAdminAction`. */
  update(tenantId: string, change: RequestLogChange, actor: Actor, traceId: string, onAdminAction: RecordAdminAction): Promise<StoredRequestLogSettings>;
  /** Whether REQUEST_LOG_KEY is configured here; null where no samples are kept (a control plane). */
  readonly keyed: boolean | null;
}
