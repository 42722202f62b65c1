import { GatewayError } from '../errors.js';
import type { RequestContext } from './request-context.js';

/** `limit` of a list endpoint: an integer in [1, max], default `dflt`; 400 otherwise. */
export function limitParam(ctx: RequestContext, dflt: number, max: number): number {
  const raw = ctx.query.get('limit');
  if (raw === null || raw === '') return dflt;
  if (!/^\d+$/.test(raw)) throw new GatewayError('invalid_request', 'limit: must be a positive integer');
  const n = Number(raw);
  if (n < 1 || n > max) throw new GatewayError('invalid_request', `limit: must be between 1 and ${max}`);
  return n;
}

/** `cursor`: opaque to clients, absent or a short token. */
export function cursorParam(ctx: RequestContext): string | null {
  const raw = ctx.query.get('cursor');
  if (raw === null || raw === '') return null;
  if (raw.length > 512) throw new GatewayError('invalid_request', 'cursor: invalid');
  return raw;
}

/**
 * A tenantId/tenant_id in a query or body must be the caller's tenant, else 403 (docs/sidecar.md): no endpoint ever
 * reads or writes another tenant's data. Strict, so that no route depends on ignoring it: present at all, it must be
 * a non-empty string (400 otherwise) equal to the caller's tenant (403 otherwise).
 */
export function assertOwnTenant(ctx: RequestContext, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || value === '') throw new GatewayError('invalid_request', "tenant_id: when given, the caller's tenant id");
  if (value !== ctx.auth.tenantId) throw new GatewayError('tenant_mismatch');
}

/** The query's tenant parameters: none, or exactly one `tenantId` or `tenant_id` (400 when repeated or empty). */
export function queryTenant(ctx: RequestContext): void {
  if (ctx.rawQuery === '') return;
  const q = ctx.query;
  const camel = q.getAll('tenantId');
  const snake = q.getAll('tenant_id');
  const count = camel.length + snake.length;
  if (count === 0) return;
  if (count > 1) throw new GatewayError('invalid_request', 'tenantId/tenant_id: give it at most once');
  assertOwnTenant(ctx, camel[0] ?? snake[0]);
}

/** A positive integer query parameter, or undefined when absent; 400 otherwise. */
export function intParam(ctx: RequestContext, name: string, required: boolean): number | undefined {
  const raw = ctx.query.get(name);
  if (raw === null || raw === '') {
    if (required) throw new GatewayError('invalid_request', `${name}: required positive integer`);
    return undefined;
  }
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw new GatewayError('invalid_request', `${name}: must be a positive integer`);
  return Number(raw);
}
