import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { openGatewayStore } from '../../src/storage/gateway-store.js';
import { TenantStore } from '../../src/identity/tenants/tenant-store.js';
import { TokenStore } from '../../src/identity/auth/token-store.js';
import { PolicyStore } from '../../src/policy/policy-store.js';
import { UserStore } from '../../src/identity/users/user-store.js';
import { SessionStore } from '../../src/identity/sessions/session-store.js';
import { SidecarTokenStore } from '../../src/fleet/sidecar-token-store.js';
import { SESSION_TTL_MS, type StorageBackend } from './backend.js';
import { describeRepositories } from './describe-repositories.js';

/** Each suite its own data dir, as each gateway has its own. */
async function openLmdb(): Promise<StorageBackend> {
  const dir = mkdtempSync(join(tmpdir(), 'aduana-conformance-'));
  const store = openGatewayStore(dir);
  return {
    repos: {
      tenants: new TenantStore(store),
      tokens: new TokenStore(store),
      policies: new PolicyStore(store),
      users: new UserStore(store),
      sessions: new SessionStore(store, SESSION_TTL_MS),
    },
    sidecarTokens: new SidecarTokenStore(store),
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('storage conformance: LMDB', () => {
  describeRepositories(openLmdb);
});
