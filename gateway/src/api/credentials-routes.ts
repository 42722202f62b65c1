import { GatewayError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import { actorOf, type RecordAdminAction } from '../governance/admin-actions.js';
import { CREDENTIAL_SECRET_MAX_BYTES, type CredentialStore } from '../credentials/credential-store.js';

export interface CredentialRouteDeps {
  credentials: CredentialStore;
  onAdminAction: RecordAdminAction;
}

/**
 * A body is `{secret}` and nothing else. Its JSON escapes can make a body up to six times its secret's bytes: larger
 * is a 413 before it is read, smaller but over the secret's cap a 400.
 */
const MAX_BODY = 6 * CREDENTIAL_SECRET_MAX_BYTES + 1024;

function secretOf(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new GatewayError('invalid_request', 'body must be an object {secret}');
  // The unknown field is not named: a secret pasted as a key would come back in the answer.
  if (Object.keys(body).some((k) => k !== 'secret')) throw new GatewayError('invalid_request', 'body: only the field "secret" is accepted');
  return (body as { secret?: unknown }).secret;
}

/**
 * The caller's tenant's provider credentials (docs/routing.md, "Provider credentials"), an admin's only: listed
 * without their secrets, set or rotated (`PUT`, the secret sealed under CREDENTIALS_KEY; 503
 * `credentials_key_missing` without it) and deleted, each change chained in the tenant's ledger. No answer carries a
 * secret. At a sidecar the writes are refused as every admin write is (its credentials come from its environment).
 */
export function registerCredentialRoutes(server: HttpServer, deps: CredentialRouteDeps): void {
  const { credentials, onAdminAction } = deps;

  server.route('get', '/v1/credentials', { auth: 'pat', scope: 'admin:manage', body: 'none' }, (ctx) => ({
    status: 200,
    body: { data: credentials.list(ctx.auth.tenantId), key_configured: credentials.keyed },
  }));

  server.route('put', '/v1/credentials/:name', { auth: 'pat', scope: 'admin:manage', body: 'json', maxBody: MAX_BODY }, async (ctx) => {
    const secret = secretOf(ctx.body);
    const { credential, rotated } = await credentials.set(ctx.auth.tenantId, ctx.params[0] as string, secret, actorOf(ctx.auth), ctx.trace.traceId, onAdminAction);
    return { status: rotated ? 200 : 201, body: credential };
  });

  server.route('delete', '/v1/credentials/:name', { auth: 'pat', scope: 'admin:manage', body: 'none' }, async (ctx) => {
    await credentials.delete(ctx.auth.tenantId, ctx.params[0] as string, actorOf(ctx.auth), ctx.trace.traceId, onAdminAction);
    return { status: 204 };
  });
}
