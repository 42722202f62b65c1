import type pg from 'pg';
import { MIGRATIONS, type Migration } from './migrations/index.js';

/** An arbitrary fixed key for pg_advisory_lock: every aduana process migrating one database takes the same lock. */
const MIGRATION_LOCK_KEY = 7_315_020_412;

/** The schema in the database is newer than this build: it must not run against it (docs/fleet-storage.md, "Migrations"). */
export class NewerSchemaError extends Error {}

/**
 * Brings the database's schema up to this build's: each migration not yet recorded in schema_migrations is applied,
 * in id order, in its own transaction together with its record. Replicas starting together queue on an advisory
 * lock, so each migration runs once. Refuses a database that lists a migration this build does not know.
 * Returns the ids it applied.
 */
export async function migrate(client: pg.Client | pg.PoolClient, migrations: readonly Migration[] = MIGRATIONS): Promise<string[]> {
  const ordered = [...migrations].sort((a, b) => migrationNumber(a.id) - migrationNumber(b.id));
  const applied: string[] = [];
  // Waiting for another replica's migrations, and the migrations themselves, may take longer than a route's statement.
  await client.query('SET statement_timeout = 0');
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  try {
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ id: string }>('SELECT id FROM schema_migrations');
    const done = new Set(rows.map((r) => r.id));
    const known = new Set(ordered.map((m) => m.id));
    const unknown = [...done].filter((id) => !known.has(id)).sort();
    if (unknown.length > 0) {
      throw new NewerSchemaError(
        `the database's schema is newer than this build (it has migration ${unknown.join(', ')}, which this build does not know): run a build at least as new as the one that migrated it`,
      );
    }
    for (const m of ordered) {
      if (done.has(m.id)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (id) VALUES ($1)', [m.id]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.id} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(m.id);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    await client.query('RESET statement_timeout');
  }
}

function migrationNumber(id: string): number {
  const n = Number.parseInt(id, 10);
  if (!Number.isInteger(n)) throw new Error(`migration id "${id}" does not start with its number`);
  return n;
}
