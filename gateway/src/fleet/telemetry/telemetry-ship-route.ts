import type { HttpServer } from '../../http/server.js';
import type { TenantRepository } from '../../storage/repositories.js';
import type { Sanitizer } from '../../telemetry/sanitizer.js';
import { assertSidecarCovers, sidecarOf } from '../sidecar-auth.js';
import type { PgTelemetryStore } from './pg-telemetry-store.js';
import { parseTelemetryBatch, type TelemetryBatch } from './telemetry-batch-format.js';

export interface TelemetryShipRouteOptions {
  store: Pick<PgTelemetryStore, 'storeBatch'>;
  tenants: Pick<TenantRepository, 'get'>;
  /** The embedded gateway's telemetry redaction, applied again to what sidecars ship. */
  sanitizer: Pick<Sanitizer, 'text' | 'value' | 'id'>;
  /** Largest batch body, bytes (FLEET_TELEMETRY_BODY_LIMIT; 413 past it). */
  maxBody: number;
  /** Most items in one batch (FLEET_TELEMETRY_BATCH_MAX; 413 past it). */
  maxItems: number;
}

/**
 * POST /v1/fleet/telemetry at the control plane (docs/fleet.md, "Telemetry"): a sidecar's batch of metric samples,
 * logs and error events, its token checked by the `sidecar` guard before the body is read. The whole batch is checked
 * before anything is stored (malformed 400, too large 413, a tenant the token does not cover 403), then stored in one
 * transaction, once per batch id: a resend answers 200 and stores nothing. Items of a tenant the control plane no longer has are skipped, and named in the answer. Logs and error
 * events are redacted again before they are stored: a sidecar redacts them already, but the control plane does not
 * take a sidecar's word for it (an older build, or anything holding a sidecar token, may ship them as they were).
 */
export function registerTelemetryShipRoute(server: HttpServer, options: TelemetryShipRouteOptions): void {
  server.route('post', '/v1/fleet/telemetry', { auth: 'sidecar', body: 'json', maxBody: options.maxBody }, async (ctx) => {
    const sidecar = sidecarOf(ctx);
    const batch = parseTelemetryBatch(ctx.body, options.maxItems);
    const tenants = new Set<string>();
    for (const x of [...batch.metrics, ...batch.logs, ...batch.errors]) tenants.add(x.tenant_id);
    for (const t of tenants) assertSidecarCovers(sidecar, t);
    const skipped = [...tenants].filter((t) => !options.tenants.get(t));
    const known = (x: { tenant_id: string }) => !skipped.includes(x.tenant_id);
    const kept: TelemetryBatch = skipped.length === 0 ? batch : { ...batch, metrics: batch.metrics.filter(known), logs: batch.logs.filter(known), errors: batch.errors.filter(known) };
    const { duplicate, stored } = await options.store.storeBatch(redacted(kept, options.sanitizer));
    return { status: 200, body: { batch_id: batch.batch_id, duplicate, stored, skipped_tenants: skipped } };
  });
}

/** The batch with every log's and error event's text and ids (agent, trace) redacted, as the gateway's own ingest does. */
function redacted(batch: TelemetryBatch, sanitizer: Pick<Sanitizer, 'text' | 'value' | 'id'>): TelemetryBatch {
  if (batch.logs.length === 0 && batch.errors.length === 0) return batch;
  return {
    ...batch,
    logs: batch.logs.map((l) => ({
      ...l,
      message: sanitizer.text(l.message),
      attributes: sanitizer.value(l.attributes) as Record<string, unknown>,
      agent_id: sanitizer.id(l.agent_id),
      trace_id: sanitizer.text(l.trace_id),
    })),
    errors: batch.errors.map((e) => ({ ...e, message: sanitizer.text(e.message), agent_id: sanitizer.id(e.agent_id), trace_id: sanitizer.text(e.trace_id) })),
  };
}
