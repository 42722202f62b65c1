import pg from 'pg';
import type { GatewayConfig } from '../../config.js';

/** How the control plane talks to PostgreSQL (docs/configuration.md: DATABASE_*). */
export interface DatabaseOptions {
  /** Connections the pool holds at most. */
  poolMax: number;
  /** The server cancels a statement running longer than this, so a wedged query fails its route instead of hanging it. */
  statementTimeoutMs: number;
  /** Longest wait for a connection, new or from the pool. */
  connectTimeoutMs: number;
}

export const DEFAULT_DATABASE_OPTIONS: DatabaseOptions = { poolMax: 10, statementTimeoutMs: 5000, connectTimeoutMs: 5000 };

/** The DATABASE_* settings, with another pool size where a pool holds a share of them. */
export function databaseOptions(config: GatewayConfig, poolMax = config.databasePoolMax): DatabaseOptions {
  return { poolMax, statementTimeoutMs: config.databaseStatementTimeoutMs, connectTimeoutMs: config.databaseConnectTimeoutMs };
}

export type Queryable = pg.Pool | pg.PoolClient | pg.Client;

/** Settings of every connection, pooled or dedicated (the change listener, migrations). */
export function clientConfig(url: string, options: DatabaseOptions): pg.ClientConfig {
  return {
    connectionString: url,
    statement_timeout: options.statementTimeoutMs,
    connectionTimeoutMillis: options.connectTimeoutMs,
    application_name: 'aduana',
  };
}

export function openPool(url: string, options: DatabaseOptions): pg.Pool {
  const pool = new pg.Pool({ ...clientConfig(url, options), max: options.poolMax });
  // An idle client losing its connection (a server restart) must not crash the process: the pool drops it.
  pool.on('error', () => {});
  return pool;
}

/**
 * Runs `work` in one transaction on a pooled client: COMMIT when it resolves, ROLLBACK when it throws (the error is
 * rethrown). The client is always released; one that failed mid-transaction is destroyed rather than reused. `begin`
 * may name the transaction's mode (say `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`).
 */
export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(begin);
    try {
      const out = await work(client);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackErr) {
        broken = rollbackErr as Error;
      }
      throw err;
    }
  } finally {
    client.release(broken);
  }
}

/** True when PostgreSQL refused a write for a unique constraint (SQLSTATE 23505). */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}
