import pg from 'pg';
import { createLogger } from '@aduana/shared';
import { startLocalPostgres, type LocalPostgres } from '@aduana/shared/local-servers';
import { HttpServer } from '../../../src/http/server.js';
import { BodyBudget } from '../../../src/http/body-budget.js';
import { migrate } from '../../../src/fleet/postgres/migrate.js';
import { PgLedgerArchive } from '../../../src/fleet/postgres/pg-ledger-archive.js';
import { registerLedgerIngestRoute } from '../../../src/fleet/shipping/ledger-ingest-route.js';
import { registerArchiveEventRoutes } from '../../../src/fleet/shipping/archive-event-routes.js';
import { sidecarGuard } from '../../../src/fleet/sidecar-auth.js';
import type { SidecarTokenRepository } from '../../../src/storage/repositories.js';
import type { Authenticator } from '../../../src/identity/auth/authenticate.js';

// The in-memory sidecar-token store the fleet tests share.
export { MemorySidecarTokens } from '../fleet-control-plane.js';

export interface ArchiveDb {
  pg: LocalPostgres;
  pool: pg.Pool;
  archive: PgLedgerArchive;
  close(): Promise<void>;
}

/** A throwaway PostgreSQL with the ledger schema and an archive on it. */
export async function startArchiveDb(name: string): Promise<ArchiveDb> {
  const server = await startLocalPostgres();
  const url = await server.createDatabase(name);
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  pool.on('error', () => {}); // an idle connection dropped by a restart is replaced on next use
  const client = await pool.connect();
  try {
    await migrate(client);
  } finally {
    client.release();
  }
  return {
    pg: server,
    pool,
    archive: new PgLedgerArchive(pool),
    async close() {
      await pool.end();
      await server.stop();
    },
  };
}

export interface ArchiveServer {
  url: string;
  port: number;
  server: HttpServer;
  close(): Promise<void>;
}

/**
 * The control plane's ledger routes on a real HTTP server: the ingest route (sidecar tokens) and the archive reads
 * (PATs, checked by an Authenticator over a test gateway's LMDB: a stand-in for the control plane's PostgreSQL
 * token store).
 */
export async function startArchiveServer(
  archive: PgLedgerArchive,
  sidecarTokens: SidecarTokenRepository,
  options: { authenticator?: Authenticator; port?: number; maxBody?: number; maxEntries?: number } = {},
): Promise<ArchiveServer> {
  const logger = createLogger('test', { level: 'silent' });
  const access = {
    authenticate: (ctx: Parameters<Authenticator['authenticate']>[0]) => {
      if (!options.authenticator) throw new Error('no authenticator given');
      return options.authenticator.authenticate(ctx);
    },
    admit: () => {},
  };
  const server = new HttpServer({
    logger,
    access,
    guards: { sidecar: sidecarGuard(sidecarTokens) },
    budget: new BodyBudget(256 * 1024 * 1024, 128 * 1024 * 1024),
    defaultMaxBody: 1024 * 1024,
    serviceName: 'control',
  });
  registerLedgerIngestRoute(server, { archive, ...(options.maxBody ? { maxBody: options.maxBody } : {}), ...(options.maxEntries ? { maxEntries: options.maxEntries } : {}) });
  registerArchiveEventRoutes(server, archive);
  server.finish();
  const port = await server.listen('127.0.0.1', options.port ?? 0);
  return { url: `http://127.0.0.1:${port}`, port, server, close: () => server.close(1000) };
}
