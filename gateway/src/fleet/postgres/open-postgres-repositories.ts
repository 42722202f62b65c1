import type { ChangeFeed } from '../change-feed.js';
import type { Repositories, SidecarTokenRepository } from '../../storage/repositories.js';
import { DEFAULT_DATABASE_OPTIONS, openPool, type DatabaseOptions } from './database.js';
import { migrate } from './migrate.js';
import type { TableSpec } from './mirrored-table.js';
import { AGENTS, PgAgentRegistry } from './pg-agent-registry.js';
import { PgChangeFeed } from './pg-change-feed.js';
import { PgDecisionResolutions, RESOLUTIONS } from './pg-decision-resolutions.js';
import { PgPolicyRepository, POLICIES } from './pg-policy-repository.js';
import { PgRequestLogSettings, REQUEST_LOG_SETTINGS } from './pg-request-log-settings.js';
import { PgRouteStore, ROUTES } from './pg-route-store.js';
import { PgSessionRepository, SESSIONS } from './pg-session-repository.js';
import { PgSidecarTokenRepository, SIDECAR_TOKENS } from './pg-sidecar-token-repository.js';
import { PgTenantRepository, TENANTS } from './pg-tenant-repository.js';
import { PgTokenRepository, TOKENS } from './pg-token-repository.js';
import { PgUserRepository, USERS } from './pg-user-repository.js';
import { TableMirror } from './table-mirror.js';
import type pg from 'pg';

export interface PostgresRepositoryOptions extends Partial<DatabaseOptions> {
  /** Login sessions' lifetime (SESSION_TTL_HOURS). */
  sessionTtlMs: number;
  /** Delay before the change listener reconnects (DATABASE_LISTEN_RETRY_MS). */
  listenRetryMs?: number;
}

export interface PostgresRepositories extends Repositories {
  readonly sidecarTokens: SidecarTokenRepository;
  /** Agents' registrations (what a bundle carries of them). */
  readonly agents: PgAgentRegistry;
  /** Recent resolutions of held decisions (what bundles carry to the sidecars). */
  readonly resolutions: PgDecisionResolutions;
  /** Each tenant's request log settings (what a bundle carries of them). */
  readonly requestLogSettings: PgRequestLogSettings;
  /** Each tenant's routes (what a bundle carries of them: names of credentials, never secrets). */
  readonly routes: PgRouteStore;
  /** The fleet revision (what a sidecar's bundle carries) and its long-poll. */
  readonly changes: ChangeFeed;
  /** The pool, for what other parts of the control plane store in the same database (the shipped ledger). */
  readonly pool: pg.Pool;
  close(): Promise<void>;
}

const MIRRORED: readonly TableSpec<never>[] = [TENANTS, TOKENS, POLICIES, USERS, SESSIONS, SIDECAR_TOKENS, AGENTS, RESOLUTIONS, REQUEST_LOG_SETTINGS, ROUTES] as unknown as readonly TableSpec<never>[];

/**
 * The control plane's storage (docs/fleet-storage.md): migrates the database to this build's schema
 * (refusing a newer one), loads the mirror every synchronous read is served from, and starts listening for changes.
 */
export async function openPostgresRepositories(url: string, options: PostgresRepositoryOptions): Promise<PostgresRepositories> {
  const db: DatabaseOptions = { ...DEFAULT_DATABASE_OPTIONS, ...definedOnly(options) };
  const pool = openPool(url, db);
  try {
    const client = await pool.connect();
    try {
      await migrate(client);
    } finally {
      client.release();
    }
    const feed = new PgChangeFeed(pool);
    const mirror = await TableMirror.open(pool, url, db, options.listenRetryMs ?? 1000, MIRRORED, {
      onRevision: (rev) => feed.observe(rev),
      onResync: () => feed.reload(),
    });
    await feed.reload();
    return {
      tenants: new PgTenantRepository(pool, mirror),
      tokens: new PgTokenRepository(pool, mirror),
      policies: new PgPolicyRepository(pool, mirror),
      users: new PgUserRepository(pool, mirror),
      sessions: new PgSessionRepository(pool, mirror, options.sessionTtlMs),
      sidecarTokens: new PgSidecarTokenRepository(pool, mirror),
      agents: new PgAgentRegistry(pool, mirror),
      resolutions: new PgDecisionResolutions(mirror),
      requestLogSettings: new PgRequestLogSettings(pool, mirror),
      routes: new PgRouteStore(pool, mirror),
      changes: feed,
      pool,
      async close() {
        await feed.close();
        await mirror.close();
        await pool.end();
      },
    };
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
}

function definedOnly(o: Partial<DatabaseOptions>): Partial<DatabaseOptions> {
  const out: Partial<DatabaseOptions> = {};
  if (o.poolMax !== undefined) out.poolMax = o.poolMax;
  if (o.statementTimeoutMs !== undefined) out.statementTimeoutMs = o.statementTimeoutMs;
  if (o.connectTimeoutMs !== undefined) out.connectTimeoutMs = o.connectTimeoutMs;
  return out;
}
