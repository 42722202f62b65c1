import { growingLru, isWellFormedToken, hashToken } from '@aduana/shared';
import { GatewayError } from '../../errors.js';
import type { Repositories } from '../../storage/repositories.js';
import type { RequestContext } from '../../http/request-context.js';
import { ROLE_SCOPES, hasScope, type Principal, type Scope } from './principal.js';
import type { TokenRecord } from './token-store.js';
import type { SessionRecord } from '../sessions/session-store.js';
import type { UserRecord } from '../users/user-record.js';

const BEARER = 'bearer ';

/** What turns a request's bearer token into a principal and applies the tenant's plan limit. */
export interface AccessControl {
  authenticate(ctx: RequestContext): Principal;
  /**
   * Throws a 429 GatewayError when the tenant is over its plan; or, when the limit is counted elsewhere (Redis), returns
   * a promise that rejects with it.
   */
  admit(principal: Principal): void | Promise<void>;
  /** The agent a call acts as when it names none and its token is bound to none (SIDECAR_AGENT_ID); absent or '': none. */
  readonly agentId?: string;
}

/**
 * The one authorization of a request, from its head alone: token to principal (left in `ctx.principal`), the agent it
 * acts as (`ctx.agentId`), the scope the route requires, then the plan limit. The HTTP server runs it for every
 * authenticated route, the proxy as its first step. A plan limit counted on Redis is left pending in `ctx.admission`
 * (docs/fleet.md, "Shared limits").
 */
export function authorize(access: AccessControl, ctx: RequestContext, scope: Scope): Principal {
  const principal = access.authenticate(ctx);
  ctx.principal = principal;
  // Resolved once here, so every route, the request log and a refusal's record see the same agent: the call's
  // x-svc-agent-id, else the agent its token is bound to, else the sidecar's own. A header that disagrees with a bound
  // token is refused where the agent is used (assertAgent).
  if (ctx.agentId === '') ctx.agentId = principal.agentId ?? access.agentId ?? '';
  if (!hasScope(principal, scope)) throw new GatewayError('missing_scope', `token lacks the ${scope} scope`);
  const waiting = access.admit(principal);
  if (waiting) {
    // Waited for by the server (with the body read) or the proxy's admission step; never an unhandled rejection when
    // the request is answered first for another reason (413, the client left).
    waiting.catch(ignore);
    ctx.admission = waiting;
  }
  return principal;
}

function ignore(): void {}

/** The token of an `Authorization: Bearer …` header, or '' when the header is absent or of another scheme. */
export function bearerToken(header: string): string {
  if (header.length <= BEARER.length || header.slice(0, BEARER.length).toLowerCase() !== BEARER) return '';
  return header.slice(BEARER.length).trim();
}

/** What the authenticator needs of a credential revision (auth/credential-revision.ts). */
export interface CredentialGeneration {
  generation(): number;
}

/** A PAT's principal as last read from the store, and until when it may be used without reading it again. */
interface CachedPat {
  principal: Principal;
  /** The token's expiry (ms since the epoch). */
  expiresMs: number;
  /** The credential generation taken before the record was read. */
  generation: number;
}

/** At most this many PATs are held in memory (least recently used go first); the rest are read on use. */
const CACHED_PATS = 10_000;

/**
 * Resolves a bearer token to a principal: a PAT (`adu_pat_…`) or a login session (`adu_ses_…`, with its user's
 * current role: a role change or a disabled account takes effect on the next request). The checksum is verified
 * first, so a mistyped or random token costs no store read.
 *
 * Given a credential revision, a PAT's principal is kept in memory after its first use and served from there while
 * the revision holds and the token has not expired: the proxy's path then reads no store (an LMDB read after another
 * thread's commit costs tens of microseconds, bench:overhead). A revocation, rotation or user disabled in this process
 * ends it at once, one made by another process sharing the data dir (the CLI) within the revision's recheck interval
 * (docs/authentication.md, "Tokens in memory"). Unknown and refused tokens are never cached.
 */
export class Authenticator {
  readonly #cache = growingLru<string, CachedPat>(CACHED_PATS);

  constructor(
    private readonly repos: Pick<Repositories, 'tokens' | 'sessions' | 'users'>,
    private readonly now: () => number = Date.now,
    private readonly revision: CredentialGeneration | null = null,
  ) {}

  fromHeader(header: string): Principal {
    const token = bearerToken(header);
    if (!token) throw new GatewayError('unauthenticated');
    return this.fromToken(token);
  }

  fromToken(token: string): Principal {
    if (token.startsWith('adu_ses_')) return this.#fromSession(token);
    if (this.revision === null) return this.#readPat(token).principal;
    const generation = this.revision.generation();
    const hit = this.#cache.get(token);
    if (hit !== undefined && hit.generation === generation) {
      if (hit.expiresMs <= this.now()) throw new GatewayError('token_expired');
      return hit.principal;
    }
    const read = this.#readPat(token);
    this.#cache.set(token, { principal: read.principal, expiresMs: read.expiresMs, generation });
    return read.principal;
  }

  #readPat(token: string): { principal: Principal; expiresMs: number } {
    if (!isWellFormedToken(token, 'pat')) throw new GatewayError('unauthenticated', invalidTokenMessage(token));
    const rec: TokenRecord | undefined = this.repos.tokens.findByHash(hashToken(token));
    if (!rec) throw new GatewayError('unauthenticated', 'invalid token');
    if (rec.revoked_at) throw new GatewayError('token_revoked');
    const expiresMs = Date.parse(rec.expires_at);
    if (expiresMs <= this.now()) throw new GatewayError('token_expired');
    // A token minted by a user carries that user's e-mail, and stops working when the user is disabled.
    const user = rec.user_id ? this.#user(rec.user_id) : undefined;
    if (user?.disabled_at) throw new GatewayError('token_revoked', 'the user of this token is disabled');
    const principal: Principal = Object.freeze({
      kind: 'pat',
      id: rec.id,
      tenantId: rec.tenant_id,
      role: rec.role,
      scopes: ROLE_SCOPES[rec.role],
      userId: rec.user_id,
      email: user?.email ?? '',
      agentId: rec.agent_id ?? null,
    });
    return { principal, expiresMs };
  }

  #fromSession(token: string): Principal {
    const rec: SessionRecord | undefined = this.repos.sessions.find(token);
    if (!rec) throw new GatewayError('unauthenticated', 'invalid token');
    if (rec.revoked_at) throw new GatewayError('token_revoked', 'session has ended');
    if (Date.parse(rec.expires_at) <= this.now()) throw new GatewayError('token_expired', 'session has expired');
    const user = this.#user(rec.user_id);
    if (!user || user.disabled_at || user.tenant_id !== rec.tenant_id) throw new GatewayError('token_revoked', 'the user of this session is disabled');
    return { kind: 'session', id: rec.id, tenantId: rec.tenant_id, role: user.role, scopes: ROLE_SCOPES[user.role], userId: user.id, email: user.email, agentId: null };
  }

  #user(id: string): UserRecord | undefined {
    return this.repos.users.get(id);
  }

  /** For the HTTP layer. */
  authenticate(ctx: RequestContext): Principal {
    return this.fromHeader(ctx.authorization);
  }
}

/** Providers' API keys by their documented prefixes: the first-run mistake of giving one where the aduana token goes. */
const PROVIDER_KEYS: readonly (readonly [string, string])[] = [
  ['sk-ant-', 'an Anthropic API key'],
  ['sk-', 'an OpenAI API key'],
  ['AIza', 'a Google (Gemini) API key'],
];

/**
 * Why a token is refused, and, when it looks like a provider's key, where that key belongs instead. The message never
 * quotes the token.
 */
function invalidTokenMessage(token: string): string {
  const kind = PROVIDER_KEYS.find(([prefix]) => token.startsWith(prefix))?.[1];
  if (kind === undefined) return 'invalid token';
  return `invalid token: this looks like ${kind}. Put an aduana token (adu_pat_…) where the SDK takes its key; the provider's key goes in x-forwarded-authorization (OpenAI) or x-forwarded-api-key (Anthropic, Gemini, Azure), in the sidecar's UPSTREAM_*_API_KEY, or in a provider credential a route names (docs/routing.md)`;
}
