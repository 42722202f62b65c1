import { isWellFormedToken, hashToken } from '@aduana/shared';
import { GatewayError } from '../errors.js';
import type { GatewayStore } from '../storage/gateway-store.js';
import type { RequestContext } from '../http/request-context.js';
import { ROLE_SCOPES, type Principal } from './principal.js';
import type { TokenRecord } from './token-store.js';

const BEARER = 'bearer ';

/** The token of an `Authorization: Bearer …` header, or '' when the header is absent or of another scheme. */
export function bearerToken(header: string): string {
  if (header.length <= BEARER.length || header.slice(0, BEARER.length).toLowerCase() !== BEARER) return '';
  return header.slice(BEARER.length).trim();
}

/**
 * Resolves a bearer token to a principal: a PAT (`adu_pat_…`; login sessions come with /login). The
 * checksum is verified first, so a mistyped or random token costs no store read. A token's record is read from LMDB
 * on every request (a memory-mapped B-tree read, about a microsecond) rather than cached, so a revocation made by the
 * CLI in another process takes effect at once.
 */
export class Authenticator {
  constructor(
    private readonly store: GatewayStore,
    private readonly now: () => number = Date.now,
  ) {}

  fromHeader(header: string): Principal {
    const token = bearerToken(header);
    if (!token) throw new GatewayError('unauthenticated');
    return this.fromToken(token);
  }

  fromToken(token: string): Principal {
    if (!isWellFormedToken(token, 'pat')) throw new GatewayError('unauthenticated', 'invalid token');
    const rec = this.store.tokens.get(hashToken(token)) as TokenRecord | undefined;
    if (!rec) throw new GatewayError('unauthenticated', 'invalid token');
    if (rec.revoked_at) throw new GatewayError('token_revoked');
    if (Date.parse(rec.expires_at) <= this.now()) throw new GatewayError('token_expired');
    return { kind: 'pat', id: rec.id, tenantId: rec.tenant_id, role: rec.role, scopes: ROLE_SCOPES[rec.role], userId: rec.user_id, email: '', agentId: rec.agent_id ?? null };
  }

  /** For the HTTP layer. */
  authenticate(ctx: RequestContext): Principal {
    return this.fromHeader(ctx.authorization);
  }
}
