import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

/**
 * A hostile or broken "provider" for the checks a real one never fails: it answers discovery, its JWKS and the token
 * endpoint, and the token endpoint returns whatever ID token the test built with `idToken` (expired, signed with
 * another key, for another audience). No authorization endpoint is walked: the test calls the callback itself.
 */
export interface FakeIssuer {
  issuer: string;
  /** The claims and signing key of the next token answer. */
  next: { claims: Record<string, unknown>; key: 'published' | 'foreign' };
  close(): Promise<void>;
}

function b64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

function jwt(claims: Record<string, unknown>, key: KeyObject, kid: string): string {
  const head = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid }));
  const body = b64url(JSON.stringify(claims));
  return `${head}.${body}.${b64url(sign('sha256', Buffer.from(`${head}.${body}`), key))}`;
}

export async function startFakeIssuer(): Promise<FakeIssuer> {
  const published = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const state: FakeIssuer = { issuer, next: { claims: {}, key: 'published' }, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  const jwk = { ...published.publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig', alg: 'RS256' };
  server.on('request', (req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/.well-known/openid-configuration') {
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/auth`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_post'],
      });
    }
    if (req.url === '/jwks') return json(200, { keys: [jwk] });
    if (req.url === '/token' && req.method === 'POST') {
      req.resume();
      req.on('end', () => {
        const key = state.next.key === 'published' ? published.privateKey : foreign.privateKey;
        json(200, { access_token: 'opaque-access-token', token_type: 'Bearer', expires_in: 300, id_token: jwt(state.next.claims, key, 'k1') });
      });
      return;
    }
    json(404, { error: 'not_found' });
  });
  return state;
}
