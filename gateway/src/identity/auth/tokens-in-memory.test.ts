import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../../errors.js';
import { openGatewayStore, type GatewayStore } from '../../storage/gateway-store.js';
import { SessionStore } from '../sessions/session-store.js';
import { UserStore } from '../users/user-store.js';
import { Authenticator } from './authenticate.js';
import { CredentialRevision } from '../../storage/credential-revision.js';
import { TokenStore } from './token-store.js';

// Tokens verified from memory (docs/authentication.md, "Tokens in memory"): after its first use a PAT is served
// without a store read, and every change that can end it ends it — at once in this process, and within the recheck
// interval when another process (the CLI) made it.
let dir: string;
let store: GatewayStore;
let tokens: TokenStore;
let users: UserStore;
let auth: Authenticator;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'aduana-auth-mem-'));
  store = openGatewayStore(dir);
  tokens = new TokenStore(store);
  users = new UserStore(store);
  auth = new Authenticator({ tokens, users, sessions: new SessionStore(store, 3_600_000) }, Date.now, store.credentials);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function refusal(token: string): string {
  try {
    auth.fromToken(token);
  } catch (err) {
    if (err instanceof GatewayError) return err.code;
    throw err;
  }
  return 'accepted';
}

describe('tokens in memory', () => {
  it('serves a warm token without reading the store, and the same principal each time', async () => {
    const { token, record } = await tokens.create({ tenantId: 'acme', role: 'operator', name: 'bot', expiresInDays: 1, agentId: 'a1' });
    const first = auth.fromToken(token);
    expect(first).toMatchObject({ kind: 'pat', id: record.id, tenantId: 'acme', role: 'operator', agentId: 'a1' });
    const reads = vi.spyOn(tokens, 'findByHash');
    for (let i = 0; i < 5; i++) expect(auth.fromToken(token)).toBe(first);
    expect(reads).not.toHaveBeenCalled();
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('never caches a refusal: an unknown token stays unknown, a created one works on its first use', async () => {
    const { token } = await tokens.create({ tenantId: 'acme', role: 'viewer', name: 'v', expiresInDays: 1 });
    const other = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    expect(refusal(other)).toBe('unauthenticated');
    expect(refusal(token)).toBe('accepted');
  });

  it('refuses a warm token at once once this process revokes it', async () => {
    const { token, record } = await tokens.create({ tenantId: 'acme', role: 'admin', name: 'a', expiresInDays: 1 });
    expect(refusal(token)).toBe('accepted');
    expect(await tokens.revoke(record.id)).toBe(true);
    expect(refusal(token)).toBe('token_revoked');
  });

  it('refuses a warm token at once when its rotation leaves no grace, and when its user is disabled', async () => {
    const rotated = await tokens.create({ tenantId: 'acme', role: 'admin', name: 'r', expiresInDays: 1 });
    expect(refusal(rotated.token)).toBe('accepted');
    const outcome = await tokens.rotate(rotated.record.id, 1, 0);
    expect(outcome.kind).toBe('rotated');
    expect(refusal(rotated.token)).toBe('token_expired');

    const user = await users.create({ tenantId: 'acme', email: 'ana@example.com', name: 'Ana', role: 'operator', provider: 'password', password: null });
    const minted = await tokens.create({ tenantId: 'acme', role: 'operator', name: 'u', expiresInDays: 1, userId: user!.id });
    expect(auth.fromToken(minted.token).email).toBe('ana@example.com');
    await users.disable('acme', user!.id);
    expect(refusal(minted.token)).toBe('token_revoked');
  });

  it('refuses a warm token once it expires, without a change to announce it', async () => {
    let now = Date.now();
    auth = new Authenticator({ tokens, users, sessions: new SessionStore(store, 3_600_000) }, () => now, store.credentials);
    const { token } = await tokens.create({ tenantId: 'acme', role: 'viewer', name: 'e', expiresInDays: 1 });
    expect(refusal(token)).toBe('accepted');
    now += 2 * 86_400_000;
    expect(refusal(token)).toBe('token_expired');
  });

  it("sees another process's revocation once the stored revision is read again, and only then", async () => {
    // Two revisions over one data dir stand for two processes: the CLI's writes reach this process only through the
    // stored counter (what `change()` announces in memory is another process's).
    const cli = { ...store, credentials: new CredentialRevision(store.root.openDB({ name: 'credential_revision' })) };
    const never = new CredentialRevision(store.root.openDB({ name: 'credential_revision' }), Number.POSITIVE_INFINITY);
    const always = new CredentialRevision(store.root.openDB({ name: 'credential_revision' }), 0);
    const sessions = new SessionStore(store, 3_600_000);
    const stale = new Authenticator({ tokens, users, sessions }, Date.now, never);
    const fresh = new Authenticator({ tokens, users, sessions }, Date.now, always);

    const { token, record } = await tokens.create({ tenantId: 'acme', role: 'operator', name: 'c', expiresInDays: 1 });
    expect(stale.fromToken(token).id).toBe(record.id);
    expect(fresh.fromToken(token).id).toBe(record.id);
    expect(await new TokenStore(cli).revoke(record.id)).toBe(true);

    expect(() => fresh.fromToken(token)).toThrow(expect.objectContaining({ code: 'token_revoked' }));
    // Not re-read within its interval (here: never): the warm principal stands until the next recheck.
    expect(stale.fromToken(token).id).toBe(record.id);
  });
});
