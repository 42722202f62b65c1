import * as client from 'openid-client';
import type { Logger } from '@aduana/shared';
import { GatewayError } from '../../errors.js';
import { OidcFlows } from './oidc-flows.js';

export interface RelyingPartyOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Plain-http provider (loopback tests only): openid-client refuses it otherwise. */
  allowInsecureHttp: boolean;
  /** The egress proxy's fetch, when one is set (undefined: the global fetch, straight to the provider). */
  fetch?: ((input: string, init: RequestInit) => Promise<Response>) | undefined;
  flowTtlMs: number;
}

/** What the provider vouched for, after every check. */
export interface VerifiedIdentity {
  iss: string;
  sub: string;
  email: string;
  emailVerified: boolean;
  name: string;
  picture: string | null;
}

const SCOPE = 'openid email profile';

/**
 * The OpenID Connect relying party (docs/authentication.md), on openid-client: discovery, authorization code with PKCE
 * (S256), state and nonce; the ID token's signature (the issuer's JWKS), iss, aud, exp and nonce are checked by the
 * library, never by hand. Discovery happens on first use and is retried after a failure, so a provider that is down
 * at start does not stop the service.
 */
export class RelyingParty {
  readonly #flows: OidcFlows;
  #config: Promise<client.Configuration> | null = null;

  constructor(
    private readonly opts: RelyingPartyOptions,
    private readonly logger: Logger,
  ) {
    this.#flows = new OidcFlows(opts.flowTtlMs);
  }

  #configuration(): Promise<client.Configuration> {
    if (!this.#config) {
      const { issuer, clientId, clientSecret, allowInsecureHttp } = this.opts;
      const auth = clientSecret ? client.ClientSecretPost(clientSecret) : client.None();
      // openid-client checks an ID token's signature only with non-repudiation checks on: by default it trusts the
      // token endpoint's TLS for the issuer instead. The signature is checked here whatever the transport.
      const execute = allowInsecureHttp ? [client.allowInsecureRequests, client.enableNonRepudiationChecks] : [client.enableNonRepudiationChecks];
      // A custom fetch given to discovery serves every later request too (the token exchange, the keys).
      const through = this.opts.fetch ? { [client.customFetch]: this.opts.fetch } : {};
      const pending = client.discovery(new URL(issuer), clientId, undefined, auth, { execute, timeout: 10, ...through });
      this.#config = pending;
      pending.catch((err: unknown) => {
        this.logger.warn({ err: errorText(err) }, 'identity provider discovery failed');
        if (this.#config === pending) this.#config = null;
      });
    }
    return this.#config;
  }

  /** The provider's authorization URL and the id of the flow to keep in the browser's cookie. */
  async start(): Promise<{ url: string; flowId: string }> {
    const config = await this.#configuration().catch(() => {
      throw new GatewayError('identity_provider_unavailable');
    });
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.opts.redirectUri,
      scope: SCOPE,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url: url.href, flowId: this.#flows.add({ state, nonce, codeVerifier }) };
  }

  /** Checks the callback (`query` is the raw query string) of the flow `flowId` and returns the verified identity. */
  async finish(flowId: string, query: string): Promise<VerifiedIdentity> {
    const flow = flowId ? this.#flows.take(flowId) : undefined;
    if (!flow) throw new GatewayError('identity_provider_refused', 'no sign-in was started from this browser, or it expired; start again');
    const config = await this.#configuration().catch(() => {
      throw new GatewayError('identity_provider_unavailable');
    });
    const current = new URL(this.opts.redirectUri);
    current.search = query;
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
    } catch (err) {
      // The reason is logged for the operator; the browser gets the one refusal.
      this.logger.warn({ err: errorText(err) }, 'identity provider sign-in refused');
      throw new GatewayError('identity_provider_refused');
    }
    const claims = tokens.claims();
    if (!claims) throw new GatewayError('identity_provider_refused');
    let email = typeof claims.email === 'string' ? claims.email : '';
    let emailVerified = claims.email_verified === true;
    let name = typeof claims.name === 'string' ? claims.name : '';
    let picture = typeof claims.picture === 'string' ? claims.picture : null;
    if (!email && tokens.access_token) {
      // Providers that keep the ID token small give the e-mail and name from the userinfo endpoint.
      try {
        const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        email = typeof info.email === 'string' ? info.email : '';
        emailVerified = info.email_verified === true;
        name ||= typeof info.name === 'string' ? info.name : '';
        picture ??= typeof info.picture === 'string' ? info.picture : null;
      } catch (err) {
        this.logger.warn({ err: errorText(err) }, 'identity provider userinfo failed');
        throw new GatewayError('identity_provider_refused');
      }
    }
    return { iss: claims.iss, sub: claims.sub, email, emailVerified, name, picture };
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
