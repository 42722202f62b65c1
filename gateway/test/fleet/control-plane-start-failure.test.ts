import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '@aduana/shared';
import { startLocalPostgres, type LocalPostgres } from '@aduana/shared/local-servers';
import { loadGatewayConfig } from '../../src/config.js';
import { startControlPlane } from '../../src/control-plane.js';

// A control plane whose start fails part-way (here its authentication port is taken, the last thing it opens) closes
// everything it opened, as its close does: no connection to the database is left behind, and the next start on the
// same data directory and database serves.

let server: LocalPostgres;
let databaseUrl: string;
let taken: Server;
const dirs: string[] = [];

beforeAll(async () => {
  server = await startLocalPostgres();
  databaseUrl = await server.createDatabase('cp_start_failure');
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => taken?.close(resolve));
  await server?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * Waits until no connection to the test database is left but this query's own: a backend leaves pg_stat_activity a
 * moment after its client said goodbye; one left open stays there.
 */
const noConnectionsLeft = () => vi.waitFor(async () => expect(await connections()).toBe(0), { timeout: 5000, interval: 50 });

/** Connections to the test database other than this query's own. */
async function connections(): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const r = await client.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    return Number(r.rows[0]!.n);
  } finally {
    await client.end();
  }
}

const config = (dataDir: string, authPort: number) =>
  loadGatewayConfig({}, { databaseUrl, dataDir, port: 0, authPort, quietBootstrap: true, logLevel: 'silent', passwordScryptLogN: 12 });

describe('a control plane that cannot start', () => {
  it('closes what it opened (its database pool, its local store) and throws the reason; the next start serves', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'aduana-cp-fail-'));
    dirs.push(dataDir);
    const port = (taken.address() as { port: number }).port;
    const err = await startControlPlane({ config: config(dataDir, port), logger: createLogger('test', { level: 'silent' }) }).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as Error).message).toMatch(new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}`));
    await noConnectionsLeft();

    const cp = await startControlPlane({ config: config(dataDir, 0), logger: createLogger('test', { level: 'silent' }) });
    try {
      const health = await fetch(`${cp.url}/health`);
      expect(health.status).toBe(200);
      expect(await connections()).toBeGreaterThan(0);
    } finally {
      await cp.close();
    }
    await noConnectionsLeft();
  });
});
