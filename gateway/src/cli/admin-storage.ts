import type { GatewayConfig } from '../config.js';
import type { SidecarTokenRepository, TenantRepository, TokenRepository, UserRepository } from '../storage/repositories.js';

/** What the admin commands act on: the LMDB data dir, or with DATABASE_URL the control plane's PostgreSQL. */
export interface AdminStorage {
  readonly tenants: TenantRepository;
  readonly tokens: TokenRepository;
  readonly users: UserRepository;
  readonly sidecarTokens: SidecarTokenRepository;
  close(): Promise<void>;
}

/**
 * Opens the store the admin commands act on (docs/fleet-storage.md, "Administration"). With DATABASE_URL set they act on
 * PostgreSQL, migrating it first, as the control plane does; the pg driver is loaded only then.
 */
export async function openAdminStorage(config: GatewayConfig): Promise<AdminStorage> {
  if (config.databaseUrl) {
    const { openPostgresRepositories } = await import('../fleet/postgres/open-postgres-repositories.js');
    const { databaseOptions } = await import('../fleet/postgres/database.js');
    return openPostgresRepositories(config.databaseUrl, {
      ...databaseOptions(config, Math.min(config.databasePoolMax, 2)),
      sessionTtlMs: config.sessionTtlHours * 3_600_000,
      listenRetryMs: config.databaseListenRetryMs,
    });
  }
  const [{ openGatewayStore }, { TenantStore }, { TokenStore }, { UserStore }, { SidecarTokenStore }] = await Promise.all([
    import('../storage/gateway-store.js'),
    import('../identity/tenants/tenant-store.js'),
    import('../identity/auth/token-store.js'),
    import('../identity/users/user-store.js'),
    import('../fleet/sidecar-token-store.js'),
  ]);
  const store = openGatewayStore(config.dataDir);
  return {
    tenants: new TenantStore(store),
    tokens: new TokenStore(store),
    users: new UserStore(store),
    sidecarTokens: new SidecarTokenStore(store),
    close: () => store.close(),
  };
}
