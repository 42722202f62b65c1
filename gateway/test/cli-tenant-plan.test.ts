import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalPostgres, type LocalPostgres } from '@aduana/shared/local-servers';
import { openPostgresRepositories } from '../src/fleet/postgres/open-postgres-repositories.js';
import { lockDataDir } from '../src/storage/data-dir-lock.js';
import { assertBuilt, runCli, startCliService, waitExit } from './helpers/run-cli.js';

/** `aduana tenant set-plan NAME PLAN` on a data dir (issue 36, item 1). */
let dataDir: string;
let env: Record<string, string>;

beforeAll(() => {
  assertBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-set-plan-'));
  env = { DATA_DIR: dataDir, GATEWAY_PORT: '0', AUTH_PORT: '0', LOG_LEVEL: 'silent', ADUANA_QUIET_BOOTSTRAP: 'true' };
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The tenant's ledger entries, as `aduana ledger export` writes them (the header line first). */
async function exported(tenant: string): Promise<Array<Record<string, unknown>>> {
  const r = await runCli(['ledger', 'export', '--tenant', tenant], env);
  expect(r.code).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('aduana tenant set-plan', () => {
  it('changes the plan `tenant list` shows, and chains the change in the tenant\'s ledger', async () => {
    expect((await runCli(['tenant', 'create', 'acme', '--plan', 'community'], env)).code).toBe(0);
    const set = await runCli(['tenant', 'set-plan', 'acme', 'professional'], env);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ id: 'acme', plan: 'professional', plan_changed: { from: 'community', to: 'professional', by: 'cli' } });
    expect((await runCli(['tenant', 'list'], env)).stdout).toMatch(/^acme\tprofessional\t/m);

    const entries = await exported('acme');
    expect(entries.map((e) => e['event_type'])).toEqual(['tenant.plan_changed']);
    expect(entries[0]).toMatchObject({ payload: { from: 'community', to: 'professional', by: 'cli' }, seq: 1 });
    expect((await runCli(['ledger', 'verify', '--tenant', 'acme'], env)).stdout).toMatch(/^acme\tok\t1 entries/);

    // The same plan again: nothing changes, nothing is chained.
    const again = await runCli(['tenant', 'set-plan', 'acme', 'professional'], env);
    expect(again.code).toBe(0);
    expect(await exported('acme')).toHaveLength(1);
  });

  it('refuses a plan that does not exist, an unknown tenant and a missing argument with exit 2, changing nothing', async () => {
    expect((await runCli(['tenant', 'create', 'beta'], env)).code).toBe(0);
    const bad = await runCli(['tenant', 'set-plan', 'beta', 'platinum'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/community, professional, enterprise/);
    expect((await runCli(['tenant', 'set-plan', 'nobody', 'enterprise'], env)).code).toBe(2);
    expect((await runCli(['tenant', 'set-plan', 'beta'], env)).code).toBe(2);
    expect((await runCli(['tenant', 'list'], env)).stdout).toMatch(/^beta\tcommunity\t/m);
  });

  it('beside a running gateway it changes nothing (only the gateway appends to the ledger) and names the API route that does it', async () => {
    expect((await runCli(['tenant', 'create', 'gamma'], env)).code).toBe(0);
    const { child } = await startCliService(['gateway'], env, /API and proxy on/);
    try {
      const r = await runCli(['tenant', 'set-plan', 'gamma', 'enterprise'], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/in use by another process \(aduana gateway, pid \d+/);
      expect(r.stderr).toContain('PUT <gateway>/admin/tenants/gamma/plan');
      expect((await runCli(['tenant', 'list'], env)).stdout).toMatch(/^gamma\tcommunity\t/m);
    } finally {
      child.kill('SIGTERM');
      await waitExit(child);
    }
  });
});

describe('aduana tenant set-plan with DATABASE_URL', () => {
  let pg: LocalPostgres;
  let pgEnv: Record<string, string>;
  let pgDir: string;
  beforeAll(async () => {
    pg = await startLocalPostgres();
    pgDir = mkdtempSync(join(tmpdir(), 'aduana-set-plan-pg-'));
    pgEnv = { DATABASE_URL: await pg.createDatabase('set_plan'), DATA_DIR: pgDir, LOG_LEVEL: 'silent' };
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
    rmSync(pgDir, { recursive: true, force: true });
  });

  it("changes the plan in PostgreSQL with who made it, chained in the control plane's own chain (each sidecar chains it from its bundle too), whatever holds DATA_DIR's lock", async () => {
    expect((await runCli(['tenant', 'create', 'delta', '--plan', 'community'], pgEnv)).code).toBe(0);
    // A control plane holds its data dir's lock; the command needs no ledger there, so no lock.
    const lock = lockDataDir(pgDir, 'gateway', 'a control plane');
    try {
      const r = await runCli(['tenant', 'set-plan', 'delta', 'professional'], pgEnv);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ id: 'delta', plan: 'professional', plan_changed: { from: 'community', to: 'professional', by: 'cli' } });
    } finally {
      lock.release();
    }
    expect((await runCli(['tenant', 'list'], pgEnv)).stdout).toMatch(/^delta\tprofessional\t/m);
    const repos = await openPostgresRepositories(pgEnv['DATABASE_URL']!, { sessionTtlMs: 3_600_000 });
    try {
      expect(repos.tenants.get('delta')?.plan_changed).toMatchObject({ from: 'community', to: 'professional', by: 'cli' });
      const { rows } = await repos.pool.query<{ entry: string }>("SELECT entry FROM ledger_entries WHERE chain_id = 'control-plane/delta'");
      expect(rows.map((r) => JSON.parse(r.entry) as unknown)).toEqual([
        expect.objectContaining({ event_type: 'tenant.plan_changed', payload: { by: 'cli', from: 'community', to: 'professional' }, seq: 1, tenant_id: 'delta' }),
      ]);
    } finally {
      await repos.close();
    }
  });
});
