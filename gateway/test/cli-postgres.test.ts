import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '@aduana/shared';
import { startLocalPostgres, type LocalPostgres } from '@aduana/shared/local-servers';
import { openPostgresRepositories } from '../src/fleet/postgres/open-postgres-repositories.js';
import { PgLedgerArchive } from '../src/fleet/postgres/pg-ledger-archive.js';
import { openGatewayStore } from '../src/storage/gateway-store.js';
import { SidecarTokenStore } from '../src/fleet/sidecar-token-store.js';
import { assertBuilt, runCli } from './helpers/run-cli.js';

let server: LocalPostgres;
let url: string;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  assertBuilt();
  server = await startLocalPostgres();
  url = await server.createDatabase('cli');
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-cli-pg-'));
  env = { DATABASE_URL: url, DATA_DIR: dataDir, LOG_LEVEL: 'silent', PASSWORD_SCRYPT_LOG_N: '12' };
}, 120_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('admin commands with DATABASE_URL act on PostgreSQL', () => {
  it('tenant, token, user and sidecar-token commands write to the database (migrated first), never to DATA_DIR', async () => {
    const created = await runCli(['tenant', 'create', 'acme', '--plan', 'professional'], env);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ id: 'acme', plan: 'professional', policy_version: 0 });
    expect((await runCli(['tenant', 'create', 'acme'], env)).code).toBe(2);
    expect((await runCli(['tenant', 'create', 'Bad Name!'], env)).code).toBe(2);
    expect((await runCli(['tenant', 'list'], env)).stdout).toMatch(/^acme\tprofessional\t/m);

    const tok = await runCli(['token', 'create', '--tenant', 'acme', '--role', 'admin', '--name', 'ops'], env);
    expect(tok.code, tok.stderr).toBe(0);
    expect(tok.stderr).not.toMatch(/not chained/);
    const pat = tok.stdout.trim();
    expect(pat).toMatch(/^adu_pat_/);
    expect((await runCli(['token', 'create', '--tenant', 'nope', '--role', 'admin'], env)).code).toBe(2);
    const tokenId = /id (tok_\S+),/.exec(tok.stderr)?.[1] ?? '';
    expect((await runCli(['token', 'list', '--tenant', 'acme'], env)).stdout).toContain(`${tokenId}\tacme\tadmin\tactive`);

    const user = await runCli(['user', 'create', '--tenant', 'acme', '--email', 'Ops@Acme.example', '--name', 'Ops', '--role', 'operator'], env, 'a long enough password\n');
    expect(user.code, user.stderr).toBe(0);
    expect((await runCli(['user', 'create', '--tenant', 'acme', '--email', 'ops@acme.example', '--name', 'Again', '--role', 'viewer'], env, 'a long enough password\n')).code).toBe(2);

    const sct = await runCli(['sidecar-token', 'create', '--name', 'edge-eu', '--tenant', 'acme'], env);
    expect(sct.code, sct.stderr).toBe(0);
    const sidecarToken = sct.stdout.trim();
    expect(sidecarToken).toMatch(/^adu_sct_/);
    expect((await runCli(['sidecar-token', 'create', '--name', 'x', '--tenant', 'ghost'], env)).code).toBe(2);
    expect((await runCli(['sidecar-token', 'create', '--tenant', 'acme'], env)).code).toBe(2);
    const all = await runCli(['sidecar-token', 'create', '--name', 'everywhere'], env);
    expect(all.code, all.stderr).toBe(0);
    const list = (await runCli(['sidecar-token', 'list', '--no-header'], env)).stdout.trim().split('\n');
    expect(list).toHaveLength(2);
    expect(list[0]).toMatch(new RegExp(`^sct_\\S+\\tactive\\t…${sidecarToken.slice(-4)}\\tacme\\t\\S+\\tedge-eu$`));
    expect(list[1]).toMatch(/\tactive\t…\S{4}\t\*\t\S+\teverywhere$/);
    const sctId = (list[0] ?? '').split('\t')[0] ?? '';
    expect((await runCli(['sidecar-token', 'revoke', sctId], env)).code).toBe(0);
    expect((await runCli(['sidecar-token', 'revoke', 'sct_nope'], env)).code).toBe(2);
    // Rotated: a successor that keeps the token's ledger chains; the old one revoked, and rotated only once.
    const allId = (list[1] ?? '').split('\t')[0] ?? '';
    const rotated = await runCli(['sidecar-token', 'rotate', allId], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout.trim()).toMatch(/^adu_sct_/);
    expect(rotated.stderr).toContain(`keeps shipping the ledger chains of ${allId}`);
    expect((await runCli(['sidecar-token', 'rotate', allId], env)).code).toBe(2);
    expect((await runCli(['token', 'revoke', tokenId], env)).code).toBe(0);

    // What a control plane on the same database reads.
    const repos = await openPostgresRepositories(url, { sessionTtlMs: 3_600_000 });
    try {
      expect(repos.tenants.get('acme')).toMatchObject({ plan: 'professional' });
      expect(repos.tokens.findByToken(pat)).toMatchObject({ id: tokenId, tenant_id: 'acme', revoked_at: expect.any(String) });
      expect(repos.users.byEmail('ops@acme.example')).toMatchObject({ tenant_id: 'acme', role: 'operator', provider: 'password' });
      expect(repos.sidecarTokens.findByHash(hashToken(sidecarToken))).toMatchObject({ id: sctId, name: 'edge-eu', tenants: ['acme'], revoked_at: expect.any(String) });
      expect(repos.sidecarTokens.findByHash(hashToken(all.stdout.trim()))).toMatchObject({ id: allId, tenants: null, revoked_at: expect.any(String) });
      expect(repos.sidecarTokens.findByHash(hashToken(rotated.stdout.trim()))).toMatchObject({ name: 'everywhere', tenants: null, revoked_at: null, chain_owner: allId });
      const { rows } = await repos.pool.query<{ id: string }>('SELECT id FROM schema_migrations');
      expect(rows.map((r) => r.id)).toContain('001_core');
      // The token and user changes are chained in the control plane's own chain of the tenant, by `cli`.
      const chained = await repos.pool.query<{ entry: string }>("SELECT entry FROM ledger_entries WHERE chain_id = 'control-plane/acme' ORDER BY seq");
      const entries = chained.rows.map((r) => JSON.parse(r.entry) as { event_type: string; payload: { actor: unknown; target: string } });
      expect(entries.map((e) => [e.event_type, e.payload.target])).toEqual([
        ['token.created', tokenId],
        ['user.created', repos.users.byEmail('ops@acme.example')!.id],
        ['token.revoked', tokenId],
      ]);
      for (const e of entries) expect(e.payload.actor).toEqual({ by: 'cli', user: null });
      expect(await new PgLedgerArchive(repos.pool).verifyTenant('acme')).toEqual([expect.objectContaining({ chain_id: 'control-plane/acme', ok: true, checked: 3 })]);
    } finally {
      await repos.close();
    }
    expect(readdirSync(dataDir)).toEqual([]);
  }, 180_000);

  it('an unreachable database fails the command with its error, and writes nothing to DATA_DIR', async () => {
    const down = await runCli(['tenant', 'list'], { ...env, DATABASE_URL: `postgres://aduana:aduana@127.0.0.1:1/none`, DATABASE_CONNECT_TIMEOUT_MS: '500' });
    expect(down.code).not.toBe(0);
    expect(down.stderr).toMatch(/ECONNREFUSED|connect/i);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe('aduana sidecar-token without DATABASE_URL acts on DATA_DIR', () => {
  it('creates, lists and revokes a sidecar token in the LMDB store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aduana-cli-sct-'));
    const lmdbEnv = { DATA_DIR: dir, LOG_LEVEL: 'silent' };
    try {
      const made = await runCli(['sidecar-token', 'create', '--name', 'local'], lmdbEnv);
      expect(made.code, made.stderr).toBe(0);
      const token = made.stdout.trim();
      const id = (await runCli(['sidecar-token', 'list', '--no-header'], lmdbEnv)).stdout.split('\t')[0] ?? '';
      expect((await runCli(['sidecar-token', 'revoke', id], lmdbEnv)).code).toBe(0);
      expect(existsSync(join(dir, 'gateway'))).toBe(true);
      const store = openGatewayStore(dir);
      try {
        expect(new SidecarTokenStore(store).findByHash(hashToken(token))).toMatchObject({ id, name: 'local', tenants: null, revoked_at: expect.any(String) });
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
