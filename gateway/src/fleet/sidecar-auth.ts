import { hashToken, isWellFormedToken } from '@aduana/shared';
import { GatewayError } from '../errors.js';
import { bearerToken } from '../identity/auth/authenticate.js';
import { HANDLED, type HttpServer } from '../http/server.js';
import type { RequestContext } from '../http/request-context.js';
import { CLIENT_ABORTED } from '../http/read-body.js';
import type { SidecarTokenRecord, SidecarTokenRepository } from '../storage/repositories.js';

/**
 * The control plane's check of a sidecar's `Authorization: Bearer adu_sct_…` (the bundle and ledger routes): the
 * checksum first (a mistyped token costs no lookup), then the stored hash. A sidecar token is not a PAT: it opens
 * only the fleet routes, and only for its tenants.
 */
export function authenticateSidecar(authorization: string, tokens: SidecarTokenRepository): SidecarTokenRecord {
  const token = bearerToken(authorization);
  if (!token || !isWellFormedToken(token, 'sct')) throw new GatewayError('unauthenticated', 'a sidecar token (adu_sct_…) is required');
  const rec = tokens.findByHash(hashToken(token));
  if (!rec) throw new GatewayError('unauthenticated', 'invalid sidecar token');
  if (rec.revoked_at) throw new GatewayError('token_revoked', 'the sidecar token has been revoked');
  return rec;
}

/** Whether a sidecar token covers a tenant. */
export function sidecarCovers(rec: SidecarTokenRecord, tenantId: string): boolean {
  return rec.tenants === null || rec.tenants.includes(tenantId);
}

/** 403 `sidecar_scope` unless the sidecar token covers the tenant (what a fleet route checks before it stores anything). */
export function assertSidecarCovers(rec: SidecarTokenRecord, tenantId: string): void {
  if (!sidecarCovers(rec, tenantId)) throw new GatewayError('sidecar_scope', `the sidecar token does not cover tenant ${tenantId}`);
}

/**
 * A fleet route's request from a sidecar (ledger, agent reports, telemetry): the token is checked from the head,
 * before a byte of the (large) body is read, then the body up to `maxBody` (413 past it). HANDLED when the sidecar
 * went away mid-body: nothing to answer.
 */
export async function readSidecarRequest(
  server: HttpServer,
  ctx: RequestContext,
  tokens: SidecarTokenRepository,
  maxBody: number,
): Promise<{ sidecar: SidecarTokenRecord; raw: Buffer } | typeof HANDLED> {
  const sidecar = authenticateSidecar(ctx.authorization, tokens);
  let raw: Buffer;
  try {
    raw = await server.readBody(ctx, maxBody);
  } catch (err) {
    if (err === CLIENT_ABORTED) return HANDLED;
    throw err;
  }
  ctx.onAbort = null;
  return { sidecar, raw };
}
