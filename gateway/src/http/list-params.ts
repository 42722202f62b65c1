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
 * DECISIONS.md: a tenantId/tenant_id in a query or body must equal the caller's tenant, else 403. No endpoint ever
 * reads or writes another tenant's data.
 */
export function assertOwnTenant(ctx: RequestContext, value: unknown): void {
  if (value === undefined || value === null || value === '') return;
  if (value !== ctx.auth.tenantId) throw new GatewayError('tenant_mismatch');
}

export function queryTenant(ctx: RequestContext): void {
  assertOwnTenant(ctx, ctx.query.get('tenantId') ?? ctx.query.get('tenant_id'));
}
