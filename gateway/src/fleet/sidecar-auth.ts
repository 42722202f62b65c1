import { hashToken, isWellFormedToken } from '@aduana/shared';
import { GatewayError } from '../errors.js';
import { bearerToken } from '../auth/authenticate.js';
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
