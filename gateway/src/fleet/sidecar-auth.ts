import { hashToken, isWellFormedToken } from '@aduana/shared';
import { GatewayError } from '../errors.js';
import { bearerToken } from '../identity/auth/authenticate.js';
import type { RequestContext } from '../http/request-context.js';
import type { AuthGuard } from '../http/route-guards.js';
import type { SidecarTokenRecord, SidecarTokenRepository } from '../storage/repositories.js';

/** Each admitted request's sidecar token, for its handler (`sidecarOf`); gone with the request. */
const sidecars = new WeakMap<RequestContext, SidecarTokenRecord>();

/**
 * The `sidecar` routes' guard (the control plane's fleet routes: bundle, ledger, agent reports, telemetry), given to
 * its server by whoever builds it: the token is checked from the head, before a byte of the (large) body is read.
 */
export function sidecarGuard(tokens: SidecarTokenRepository): AuthGuard {
  return {
    check(ctx) {
      sidecars.set(ctx, authenticateSidecar(ctx.authorization, tokens));
    },
  };
}

/** The sidecar token the `sidecar` guard admitted this request with. */
export function sidecarOf(ctx: RequestContext): SidecarTokenRecord {
  const rec = sidecars.get(ctx);
  if (!rec) throw new Error('fleet route ran without its sidecar guard');
  return rec;
}

/**
 * The control plane's check of a sidecar's `Authorization: Bearer adu_sct_…`: the checksum first (a mistyped token
 * costs no lookup), then the stored hash. A sidecar token is not a PAT: it opens only the fleet routes, and only for
 * its tenants.
 */
function authenticateSidecar(authorization: string, tokens: SidecarTokenRepository): SidecarTokenRecord {
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
