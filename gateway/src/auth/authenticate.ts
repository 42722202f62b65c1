import { isWellFormedToken, hashToken } from '@aduana/shared';
import { GatewayError } from '../errors.js';
import type { GatewayStore } from '../storage/gateway-store.js';
import type { RequestContext } from '../http/request-context.js';
import { ROLE_SCOPES, type Principal } from './principal.js';
import type { TokenRecord } from './token-store.js';
import type { SessionRecord } from './session-store.js';

const BEARER = 'bearer ';

/** The token of an `Authorization: Bearer …` header, or '' when the header is absent or of another scheme. */
export function bearerToken(header: string): string {
  if (header.length <= BEARER.length || header.slice(0, BEARER.length).toLowerCase() !== BEARER) return '';
  return header.slice(BEARER.length).trim();
}

/**
 * Resolves a bearer token to a principal. PATs (`adu_pat_…`) and login sessions (`adu_ses_…`) are accepted. The
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
    if (isWellFormedToken(token, 'pat')) return this.#pat(token);
    if (isWellFormedToken(token, 'ses')) return this.#session(token);
    throw new GatewayError('unauthenticated', 'invalid token');
  }

  #pat(token: string): Principal {
    return this.#principal('pat', this.store.tokens.get(hashToken(token)) as TokenRecord | undefined, 'token');
  }

  #session(token: string): Principal {
    return this.#principal('ses', this.store.sessions.get(hashToken(token)) as SessionRecord | undefined, 'session');
  }

  /** One set of rules for both kinds of bearer: unknown, revoked and expired are 401s, each with its own message. */
  #principal(kind: 'pat' | 'ses', rec: TokenRecord | SessionRecord | undefined, noun: 'token' | 'session'): Principal {
    if (!rec) throw new GatewayError('unauthenticated', 'invalid token');
    if (rec.revoked_at) throw new GatewayError('token_revoked', `${noun} has been revoked`);
    if (Date.parse(rec.expires_at) <= this.now()) throw new GatewayError('token_expired', `${noun} has expired`);
    return {
      kind: kind === 'pat' ? 'pat' : 'session',
      id: rec.id,
      tenantId: rec.tenant_id,
      role: rec.role,
      scopes: ROLE_SCOPES[rec.role],
      userId: rec.user_id,
      email: 'email' in rec ? rec.email : '',
    };
  }

  /** For the HTTP layer. */
  authenticate(ctx: RequestContext): Principal {
    return this.fromHeader(ctx.authorization);
  }
}
