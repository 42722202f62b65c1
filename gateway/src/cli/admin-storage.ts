import { readFileSync } from 'node:fs';
import type { GatewayConfig } from '../config.js';
import type { Ledger, LedgerInput } from '../ledger/index.js';
import type { SidecarTokenRepository, TenantRepository, TokenRepository, UserRepository } from '../storage/repositories.js';
import type { CredentialStore } from '../credentials/credential-store.js';

/** What the admin commands act on: the LMDB data dir, or with DATABASE_URL the control plane's PostgreSQL. */
export interface AdminStorage {
  readonly tenants: TenantRepository;
  readonly tokens: TokenRepository;
  readonly users: UserRepository;
  readonly sidecarTokens: SidecarTokenRepository;
  /** The data dir's provider credentials; null with DATABASE_URL (the control plane keeps none: docs/routing.md). */
  readonly credentials: CredentialStore | null;
  /**
   * Chains an entry in a tenant's ledger. On LMDB this process appends, so its caller holds the data dir's lock (no
   * gateway may be appending at the same time). With DATABASE_URL: the control plane's own chain of the tenant, whose
   * appends PostgreSQL serialises (docs/fleet.md, "The control plane's own chain").
   */
  readonly chain: ((tenantId: string, entry: LedgerInput) => Promise<void>) | null;
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
    const repos = await openPostgresRepositories(config.databaseUrl, {
      ...databaseOptions(config, Math.min(config.databasePoolMax, 2)),
      sessionTtlMs: config.sessionTtlHours * 3_600_000,
      listenRetryMs: config.databaseListenRetryMs,
    });
    const { PgControlChain } = await import('../fleet/postgres/pg-control-chain.js');
    const own = new PgControlChain(repos.pool);
    return Object.assign(repos, {
      credentials: null,
      chain: async (tenantId: string, entry: LedgerInput) => {
        await own.append(tenantId, entry);
      },
    });
  }
  const [{ openGatewayStore }, { TenantStore }, { TokenStore }, { UserStore }, { SidecarTokenStore }, { Ledger }, { timestampsCheckpoints }, { ledgerCompression }, { CredentialStore }] = await Promise.all([
    import('../storage/gateway-store.js'),
    import('../identity/tenants/tenant-store.js'),
    import('../identity/auth/token-store.js'),
    import('../identity/users/user-store.js'),
    import('../fleet/sidecar-token-store.js'),
    import('../ledger/index.js'),
    import('../identity/tenants/plans.js'),
    import('../proxy/ledger-compression.js'),
    import('../credentials/credential-store.js'),
  ]);
  const store = openGatewayStore(config.dataDir);
  const tenants = new TenantStore(store);
  let ledger: Ledger | null = null;
  // Opened on first use: most commands chain nothing. Its checkpoints are signed with the gateway's key and, for the
  // plans whose checkpoints are time-stamped, queued for the gateway to send (as `aduana ledger export` does).
  const open = (): Ledger =>
    (ledger ??= Ledger.open(store.root, {
      keyDir: config.dataDir,
      compress: ledgerCompression(config.ledgerCompression),
      anchoring: config.anchorTsaUrl ? { tenant: (id) => timestampsCheckpoints(tenants.get(id)?.plan) } : null,
      tsaCertPem: config.anchorTsaCert ? readFileSync(config.anchorTsaCert, 'utf8') : null,
    }));
  return {
    tenants,
    tokens: new TokenStore(store),
    users: new UserStore(store),
    sidecarTokens: new SidecarTokenStore(store),
    credentials: new CredentialStore(store.providerCredentials, config.credentialsKey),
    chain: async (tenantId, entry) => {
      await open().append(tenantId, [entry]);
    },
    close: async () => {
      await ledger?.close();
      await store.close();
    },
  };
}
