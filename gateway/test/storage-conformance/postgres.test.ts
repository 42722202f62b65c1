import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { startLocalPostgres, type LocalPostgres } from '@aduana/shared/local-servers';
import { openPostgresRepositories, type PostgresRepositories } from '../../src/fleet/postgres/open-postgres-repositories.js';
import { migrate, NewerSchemaError } from '../../src/fleet/postgres/migrate.js';
import { MIGRATIONS } from '../../src/fleet/postgres/migrations/index.js';
import { SESSION_TTL_MS, compile, ratePolicy, uniqueId, type StorageBackend } from './backend.js';
import { describeRepositories } from './describe-repositories.js';

let server: LocalPostgres;
let url: string;

beforeAll(async () => {
  server = await startLocalPostgres();
  url = await server.createDatabase('conformance');
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

function openPg(databaseUrl = url, listenRetryMs = 100): Promise<PostgresRepositories> {
  return openPostgresRepositories(databaseUrl, { sessionTtlMs: SESSION_TTL_MS, listenRetryMs, poolMax: 4 });
}

/** Each suite opens its own repositories on the file's one database, as each control-plane replica does. */
async function openBackend(): Promise<StorageBackend> {
  const repos = await openPg();
  return { repos, sidecarTokens: repos.sidecarTokens, close: () => repos.close() };
}

describe('storage conformance: PostgreSQL', () => {
  describeRepositories(openBackend);
});

describe('PostgreSQL: two replicas on one database', () => {
  let a: PostgresRepositories;
  let b: PostgresRepositories;
  beforeAll(async () => {
    [a, b] = await Promise.all([openPg(), openPg()]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it("a write at one replica reaches the other's mirror", async () => {
    const t = uniqueId('replica');
    await a.tenants.create(t, 'community');
    await vi.waitFor(() => expect(b.tenants.get(t)).toMatchObject({ id: t }), { timeout: 5000 });
    const { token, record } = await a.tokens.create({ tenantId: t, role: 'admin', name: 'x', expiresInDays: 1 });
    await vi.waitFor(() => expect(b.tokens.findByToken(token)).toEqual(record), { timeout: 5000 });
    await a.tokens.revoke(record.id);
    await vi.waitFor(() => expect(b.tokens.findByToken(token)?.revoked_at).toEqual(expect.any(String)), { timeout: 5000 });
    const p = await b.policies.create(t, ratePolicy('from-b'), compile);
    await vi.waitFor(() => {
      expect(a.policies.get(t, p.record.id)).toEqual(p.record);
      expect(a.policies.version(t)).toBe(1);
    }, { timeout: 5000 });
    await b.policies.remove(t, p.record.id, compile);
    await vi.waitFor(() => expect(a.policies.all(t)).toEqual([]), { timeout: 5000 });
  });

  it("agents' registrations: put, replace, list and remove reach the other replica and bump the fleet revision", async () => {
    const t = uniqueId('agents');
    const rev = a.changes.revision();
    const reg = await a.agents.put(t, { agent_id: 'team/bot-1', name: 'Bot', policy_pack: null, risk_budget: 50, suspended: false });
    // A registration made at the control plane carries where it was made and when (migration 003).
    expect(reg).toEqual({ tenant_id: t, agent_id: 'team/bot-1', name: 'Bot', policy_pack: null, risk_budget: 50, suspended: false, origin: 'control', metadata: null, created_at: expect.any(Number), updated_at: reg.created_at });
    expect(Math.abs(reg.created_at - Date.now())).toBeLessThan(60_000);
    expect(a.agents.get(t, 'team/bot-1')).toEqual(reg);
    await vi.waitFor(() => expect(b.agents.get(t, 'team/bot-1')).toEqual(reg), { timeout: 5000 });
    await a.agents.put(t, { ...reg, suspended: true });
    await a.agents.put(t, { agent_id: 'a-0', name: 'First', policy_pack: null, risk_budget: null, suspended: false });
    await vi.waitFor(() => {
      expect(b.agents.list(t).map((x) => [x.agent_id, x.suspended])).toEqual([
        ['a-0', false],
        ['team/bot-1', true],
      ]);
    }, { timeout: 5000 });
    expect(await a.agents.remove(t, 'team/bot-1')).toBe(true);
    expect(await a.agents.remove(t, 'team/bot-1')).toBe(false);
    await vi.waitFor(() => expect(b.agents.get(t, 'team/bot-1')).toBeUndefined(), { timeout: 5000 });
    await vi.waitFor(() => expect(b.changes.revision()).toBeGreaterThanOrEqual(rev + 4), { timeout: 5000 });
  });

  it('policy changes to one tenant on two replicas serialise on the tenant row', async () => {
    const t = uniqueId('serial');
    await a.tenants.create(t, 'community');
    const [x, y] = await Promise.all([a.policies.create(t, ratePolicy('x'), compile), b.policies.create(t, ratePolicy('y'), compile)]);
    expect([x.compiled.version, y.compiled.version].sort()).toEqual([1, 2]);
    const later = x.compiled.version === 2 ? x : y;
    expect(later.compiled.ids).toHaveLength(2);
    await vi.waitFor(() => {
      expect(a.policies.version(t)).toBe(2);
      expect(b.policies.all(t)).toHaveLength(2);
    }, { timeout: 5000 });
  });

  it("the change feed's revision rises, and waitForChange at one replica resolves when the other writes", async () => {
    // Announcements of earlier tests may still be in flight to b: start from the database's own revision, heard by b.
    const settled = async (): Promise<number> => {
      const { rows } = await a.pool.query<{ revision: string }>('SELECT revision FROM fleet_revision');
      const revision = Number(rows[0]!.revision);
      await vi.waitFor(() => expect(b.changes.revision()).toBe(revision), { timeout: 5000 });
      return revision;
    };
    const before = await settled();
    const waiting = b.changes.waitForChange(before, 10_000);
    await a.tenants.create(uniqueId('feed'), 'community');
    const after = await waiting;
    expect(after).toBeGreaterThan(before);
    // Nothing changed: the wait ends with the same revision after its timeout.
    const now = await settled();
    expect(await b.changes.waitForChange(now, 200)).toBe(now);
    // A change the bundle does not carry (a session) moves nothing.
    await a.sessions.open('t', 'u', 'password');
    expect(await b.changes.waitForChange(now, 300)).toBe(now);
  });

  it('after PostgreSQL restarts, the listener reconnects and the mirror catches up on what it missed', async () => {
    // A replica slow to reconnect: what is written meanwhile is never announced to it, only its reload finds it.
    const slow = await openPg(url, 2000);
    try {
      const t = uniqueId('outage');
      await server.halt();
      await server.restart();
      await vi.waitFor(async () => expect(await a.tenants.create(t, 'community')).toBeDefined(), { timeout: 15_000, interval: 100 });
      await vi.waitFor(() => expect(slow.tenants.get(t)).toMatchObject({ id: t }), { timeout: 15_000 });
      await vi.waitFor(() => expect(b.tenants.get(t)).toMatchObject({ id: t }), { timeout: 15_000 });
      const later = uniqueId('after');
      await a.tenants.create(later, 'community');
      await vi.waitFor(() => expect(slow.tenants.get(later)).toMatchObject({ id: later }), { timeout: 5000 });
      await vi.waitFor(() => expect(slow.changes.revision()).toBe(a.changes.revision()), { timeout: 5000 });
    } finally {
      await slow.close();
    }
  }, 60_000);
});

describe('PostgreSQL: migrations and statement timeouts', () => {
  it('two replicas starting together on an empty database migrate it once', async () => {
    const fresh = await server.createDatabase('migrate_race');
    const [x, y] = await Promise.all([openPg(fresh), openPg(fresh)]);
    try {
      const { rows } = await x.pool.query<{ id: string }>('SELECT id FROM schema_migrations ORDER BY id');
      expect(rows.map((r) => r.id)).toEqual(MIGRATIONS.map((m) => m.id));
      const client = await y.pool.connect();
      try {
        expect(await migrate(client)).toEqual([]);
      } finally {
        client.release();
      }
    } finally {
      await x.close();
      await y.close();
    }
  });

  it('a migration that fails is rolled back whole and not recorded; the next start tries it again', async () => {
    const fresh = await server.createDatabase('migrate_fail');
    const c = new pg.Client({ connectionString: fresh });
    await c.connect();
    try {
      const bad = { id: '900_bad', sql: 'CREATE TABLE half_done (x int); SELECT no_such_column FROM half_done;' };
      await expect(migrate(c, [...MIGRATIONS, bad])).rejects.toThrow(/migration 900_bad failed/);
      const { rows } = await c.query<{ id: string }>('SELECT id FROM schema_migrations ORDER BY id');
      expect(rows.map((r) => r.id)).toEqual(MIGRATIONS.map((m) => m.id));
      expect((await c.query("SELECT to_regclass('half_done') AS t")).rows[0]).toEqual({ t: null });
      expect(await migrate(c, [...MIGRATIONS, { id: '900_fixed', sql: 'CREATE TABLE half_done (x int)' }])).toEqual(['900_fixed']);
    } finally {
      await c.end();
    }
  });

  it('refuses a database whose schema is newer than this build', async () => {
    const newer = await server.createDatabase('newer_schema');
    await (await openPg(newer)).close();
    const c = new pg.Client({ connectionString: newer });
    await c.connect();
    await c.query("INSERT INTO schema_migrations (id) VALUES ('999_from_the_future')");
    await c.end();
    await expect(openPg(newer)).rejects.toThrow(NewerSchemaError);
    await expect(openPg(newer)).rejects.toThrow(/newer than this build.*999_from_the_future/);
  });

  it('a statement running past DATABASE_STATEMENT_TIMEOUT_MS is cancelled instead of hanging', async () => {
    const repos = await openPostgresRepositories(url, { sessionTtlMs: SESSION_TTL_MS, statementTimeoutMs: 300 });
    try {
      await expect(repos.pool.query('SELECT pg_sleep(30)')).rejects.toThrow(/statement timeout/);
      expect((await repos.pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    } finally {
      await repos.close();
    }
  });
});
