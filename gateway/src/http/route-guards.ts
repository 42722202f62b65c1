import type { Scope } from '../identity/auth/principal.js';
import { authorize, type AccessControl } from '../identity/auth/authenticate.js';
import { queryTenant } from './list-params.js';
import { NO_HEADERS, type RequestContext } from './request-context.js';

/**
 * How a route authenticates its caller. Every route declares one; the server runs the kind's guard from the head,
 * before the handler and before a byte of the body is read (docs/architecture.md, "The gateway's rooms").
 * - `public`: no credential is checked (health, sign-in, the console's sign-in form and assets, /verify, which
 *   reports on the token it is shown rather than requiring one).
 * - `pat`: a bearer token (a PAT, or a login session's token) with the route's scope, within the tenant's plan; a
 *   tenant parameter in the query must be the caller's.
 * - `session`: the console's session cookie, and the route's scope when it declares one.
 * - `sidecar`: a sidecar token (the control plane's fleet routes).
 * - `scrape`: the operator's metrics scrape credential, or else a `pat` with runtime:read.
 */
export type AuthKind = 'public' | 'pat' | 'session' | 'sidecar' | 'scrape';

/** A route's authentication, as it declares it: the scope only where the kind takes one. */
export type RouteAuth =
  | { readonly auth: 'public' | 'sidecar' | 'scrape'; readonly scope?: undefined }
  | {
      readonly auth: 'pat';
      readonly scope: Scope;
      /**
       * 'handler': the guard's refusal is left in `ctx.refusal` and a pending plan admission in `ctx.admission`, and
       * the handler runs at once to answer them itself (the proxy: every answer of its carries the verdict headers and
       * is recorded, and it reads its own body). Needs `body: 'none'`. Default 'server'.
       */
      readonly refusedBy?: 'server' | 'handler';
      /**
       * Request headers where a provider's SDK puts its API key (Anthropic's `x-api-key`): without an Authorization
       * header, the first of them present is read as the bearer token. The key of that provider never reaches it.
       * Google's `x-goog-api-key` brings its query parameter with it (KEY_QUERY).
       */
      readonly keyHeaders?: readonly string[];
    }
  | {
      readonly auth: 'session';
      readonly scope?: Scope;
      /** A page: a caller the guard refuses as unauthenticated (401) is sent here (303) instead. */
      readonly signIn?: string;
    };

/** The guard of one kind: synchronous (it runs from the head alone), throwing a GatewayError to refuse. */
export interface AuthGuard {
  /** Request headers it reads (lower case), read with the head on every route of its kind. */
  readonly headers?: readonly string[];
  /** Refuses by throwing; leaves what the handler needs where the handler can read it. */
  check(ctx: RequestContext, scope: Scope | undefined): void;
}

/** The guards a server is given by whoever builds it, so that http/ imports neither the console nor fleet. */
export type AuthGuards = Readonly<Partial<Record<Exclude<AuthKind, 'public' | 'pat'>, AuthGuard>>>;

/** The `pat` guard: the one authorization of a request (identity/auth/authenticate.ts), then the tenant parameter. */
export function checkPat(access: AccessControl, ctx: RequestContext, scope: Scope): void {
  authorize(access, ctx, scope);
  // Every authenticated route, whether or not it reads one: a foreign or ambiguous tenant parameter is refused.
  queryTenant(ctx);
}

type Check = (ctx: RequestContext) => void;

/**
 * What the server runs from a route's head before its handler: the guard of its kind, then `after` (the server's
 * route guard); null when there is nothing to run. Throws at registration when the kind has no guard here or the
 * declaration does not hold together, so a server never starts with a route it cannot guard.
 */
export function routeCheck(name: string, options: RouteAuth & { readonly body: string }, access: AccessControl, guards: AuthGuards, after: Check | null): Check | null {
  let guard: Check | null;
  if (options.auth === 'public') guard = null;
  else if (options.auth === 'pat') {
    const scope = options.scope;
    const keys = options.keyHeaders ?? [];
    const query = keyQuery(keys);
    guard =
      keys.length === 0
        ? (ctx) => checkPat(access, ctx, scope)
        : (ctx) => {
            if (ctx.authorization === '') ctx.authorization = bearerFromKeyHeaders(ctx, keys, query);
            checkPat(access, ctx, scope);
          };
  } else {
    const kind = guards[options.auth];
    if (kind === undefined) throw new Error(`${name}: this server has no guard for routes of kind '${options.auth}'`);
    const scope = options.scope;
    guard = (ctx) => kind.check(ctx, scope);
  }
  const both = guard !== null && after !== null ? bothChecks(guard, after) : (guard ?? after);
  if (options.auth !== 'pat' || options.refusedBy !== 'handler') return both;
  if (options.body !== 'none') throw new Error(`${name}: a route that answers its own refusals reads its own body (body: 'none')`);
  return both === null ? null : handedOver(both);
}

/** The route's request headers: those it declares, and those its kind's guard reads. */
export function routeHeaders(options: RouteAuth & { readonly headers?: readonly string[] }, guards: AuthGuards): readonly string[] {
  const guard = options.auth === 'public' || options.auth === 'pat' ? undefined : guards[options.auth];
  const keys = options.auth === 'pat' ? (options.keyHeaders ?? []) : [];
  const names = new Set([...(options.headers ?? []), ...(guard?.headers ?? []), ...keys].map((h) => h.toLowerCase()));
  // None: the shared empty list, so that nothing is allocated for them per request.
  return names.size === 0 ? NO_HEADERS : Object.freeze([...names]);
}

function bothChecks(first: Check, then: Check): Check {
  return (ctx) => {
    first(ctx);
    then(ctx);
  };
}

/** The check with its refusal left in the context for the handler. */
function handedOver(check: Check): Check {
  return (ctx) => {
    try {
      check(ctx);
    } catch (thrown) {
      ctx.refusal = { thrown };
    }
  };
}

/**
 * Google's APIs take their API key in `x-goog-api-key` or in the `key` query parameter alike, and clients send either
 * (a raw `?key=` URL is how Google's own examples call the Gemini API): a route reading the PAT from that header reads
 * it from the query too. Only there: on any other route `?key=` is no credential. The query goes no further than this
 * guard: the upstream path is built from the route's parameters, and the request log keeps the path without it.
 */
const KEY_QUERY: ReadonlyMap<string, string> = new Map([['x-goog-api-key', 'key']]);

/** The query parameter that carries the key on a route with these key headers, or null. */
function keyQuery(keys: readonly string[]): string | null {
  for (const name of keys) {
    const q = KEY_QUERY.get(name.toLowerCase());
    if (q !== undefined) return q;
  }
  return null;
}

/**
 * `Bearer <key>` from the first key header present, else from the key query parameter when the route has one, or ''
 * (the guard then refuses as for a missing credential).
 */
function bearerFromKeyHeaders(ctx: RequestContext, keys: readonly string[], query: string | null): string {
  for (const name of keys) {
    const v = ctx.header(name);
    if (v !== '') return `Bearer ${v}`;
  }
  const v = query === null || ctx.rawQuery === '' ? '' : (ctx.query.get(query) ?? '');
  return v === '' ? '' : `Bearer ${v}`;
}
