import { TokenBuckets } from '@aduana/shared';
import { GatewayError } from '../../errors.js';
import type { HttpServer } from '../../http/server.js';
import { OIDC_FLOW_COOKIE, SESSION_COOKIE, cookieValue, setCookie } from '../../platform/cookies.js';
import { HTML_HEADERS, HTML_TYPE } from '../console/html-headers.js';
import type { RelyingParty } from '../../identity/oidc/relying-party.js';
import { provisionUser } from '../../identity/oidc/provision-user.js';
import type { GatewayDeps } from '../../gateway-deps.js';
import { clientSource } from '../../platform/client-source.js';

const COOKIE_HEADERS = ['cookie'] as const;

/**
 * GET /auth/idp starts an OpenID Connect sign-in, GET /auth/idp/callback finishes it and opens a session
 * (docs/authentication.md). Both answer 404 when OIDC_ISSUER is not set; starts are limited per client address
 * (OIDC_STARTS_PER_MINUTE).
 */
export function registerIdpRoutes(server: HttpServer, deps: Pick<GatewayDeps, 'config' | 'users' | 'sessions' | 'logger' | 'egress'>): void {
  const { config, users, sessions, logger, egress } = deps;
  const enabled = config.oidcIssuer !== '';
  // openid-client and its JOSE stack are loaded only where OIDC is configured: a gateway without it (a sidecar, as a
  // rule) never holds them in memory.
  const rp: Promise<RelyingParty> | null = enabled
    ? import('../../identity/oidc/relying-party.js').then(
        ({ RelyingParty }) =>
          new RelyingParty(
            {
              issuer: config.oidcIssuer,
              clientId: config.oidcClientId,
              clientSecret: config.oidcClientSecret,
              redirectUri: config.oidcRedirectUri,
              allowInsecureHttp: config.oidcAllowInsecureHttp,
              fetch: egress.fetch,
              flowTtlMs: config.oidcFlowTtlS * 1000,
            },
            logger,
          ),
      )
    : null;
  const allowedDomains = config.oidcAllowedDomains
    .split(',')
    .map((d) => d.trim().toLowerCase())
    .filter((d) => d !== '');
  const secure = config.cookieSecure;
  // Each start holds a pending flow in memory until it comes back or expires (at most 10,000, oldest out first): per
  // client source (an IPv6 /64 as one), so one client cannot push out everyone else's half-done sign-ins.
  const starts = new TokenBuckets({ capacity: config.oidcStartsPerMinute, refillPerSecond: config.oidcStartsPerMinute / 60 });

  server.route('get', '/auth/idp', { auth: 'public', body: 'none' }, async (ctx) => {
    if (!rp) throw new GatewayError('identity_provider_off');
    const allowed = starts.take(clientSource(ctx.clientAddress()));
    if (!allowed.allowed) {
      throw new GatewayError('rate_limited', `too many sign-ins started from this address; retry in ${allowed.retryAfterS} s`, '', { 'retry-after': String(allowed.retryAfterS) });
    }
    const { url, flowId } = await (await rp).start();
    // Lax, not Strict: the browser must send it on the provider's redirect back, a navigation from another site.
    const cookie = setCookie(OIDC_FLOW_COOKIE, flowId, { maxAge: config.oidcFlowTtlS, path: '/auth/idp', sameSite: 'Lax', secure });
    return { status: 302, headers: { location: url, 'set-cookie': cookie, 'cache-control': 'no-store' } };
  });

  server.route('get', '/auth/idp/callback', { auth: 'public', body: 'none', headers: COOKIE_HEADERS }, async (ctx) => {
    if (!rp) throw new GatewayError('identity_provider_off');
    const identity = await (await rp).finish(cookieValue(ctx.header('cookie'), OIDC_FLOW_COOKIE), ctx.rawQuery);
    const user = await provisionUser(users, identity, { tenantId: config.oidcTenant, allowedDomains });
    const { token, record } = await sessions.open(user.tenant_id, user.id, 'oidc');
    const maxAge = Math.floor((Date.parse(record.expires_at) - Date.now()) / 1000);
    // A page that moves on by itself rather than a redirect: the browser arrived here from the provider's site, and
    // a SameSite=Strict cookie is only sent on the next navigation when that one starts on this site.
    return {
      status: 200,
      contentType: HTML_TYPE,
      raw: '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><meta http-equiv="refresh" content="0;url=/console"><title>Signed in</title></head><body><p>Signed in. <a href="/console">Continue to the console</a>.</p></body></html>',
      headers: { ...HTML_HEADERS, 'set-cookie': setCookie(SESSION_COOKIE, token, { maxAge, path: '/', sameSite: 'Strict', secure }) },
    };
  });
}
