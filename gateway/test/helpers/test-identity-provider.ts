import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

export interface TestIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The account the next sign-in completes as (the login and consent interactions finish by themselves). */
  account: TestAccount;
  close(): Promise<void>;
}

/**
 * A real OpenID Provider (oidc-provider, a certified implementation) on a loopback port: one confidential client with
 * the given redirect URI, PKCE required; its login and consent prompts complete at once as `account`.
 */
export async function startTestIdentityProvider(redirectUri: string): Promise<TestIdentityProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'aduana-console';
  const clientSecret = 'test-secret-0123456789abcdef0123456789';
  const state: TestIdentityProvider = {
    issuer,
    clientId,
    clientSecret,
    account: { sub: 'user-1', email: 'ida@idp.example', email_verified: true, name: 'Ida Provider' },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' }],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-cookie-key-0123456789'] },
    findAccount: (_ctx: unknown, sub: string) => {
      const a = state.account;
      return { accountId: sub, claims: () => ({ sub, email: a.email, email_verified: a.email_verified, name: a.name }) };
    },
  });
  const handle = provider.callback();
  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return handle(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      const grant = new provider.Grant({ accountId: state.account.sub, clientId: details.params.client_id as string });
      grant.addOIDCScope('openid email profile');
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId: state.account.sub }, consent: { grantId } }, { mergeWithLastSubmission: false });
    })().catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });
  return state;
}
