import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockDataDir } from '../src/storage/data-dir-lock.js';
import { assertBuilt, runCli } from './helpers/run-cli.js';

/** The command line's admin actions are chained as the API's are (issue 34, "who changed what"), actor `cli`. */
let dataDir: string;
let env: Record<string, string>;

beforeAll(() => {
  assertBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-cli-audit-'));
  env = { DATA_DIR: dataDir, GATEWAY_PORT: '0', AUTH_PORT: '0', LOG_LEVEL: 'silent', ADUANA_QUIET_BOOTSTRAP: 'true' };
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function exported(tenant: string): Promise<Array<Record<string, unknown>>> {
  const r = await runCli(['ledger', 'export', '--tenant', tenant], env);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('admin actions of the command line', () => {
  it('token create, rotate, revoke, user create and disable: each chained once, by cli, and the chain verifies', async () => {
    expect((await runCli(['tenant', 'create', 'acme'], env)).code).toBe(0);
    const created = await runCli(['token', 'create', '--tenant', 'acme', '--role', 'viewer'], env);
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.trim();
    const id = /^id (\S+),/.exec(created.stderr)![1]!;
    const rotated = await runCli(['token', 'rotate', id], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    const successor = /^id (\S+) succeeds/m.exec(rotated.stderr)![1]!;
    expect((await runCli(['token', 'revoke', successor], env)).code).toBe(0);
    const user = await runCli(['user', 'create', '--tenant', 'acme', '--email', 'bo@example.com', '--name', 'Bo', '--role', 'viewer'], env, 'a long enough password\n');
    expect(user.code, user.stderr).toBe(0);
    const userId = user.stdout.trim();
    expect((await runCli(['user', 'disable', '--tenant', 'acme', userId], env)).code).toBe(0);

    const entries = await exported('acme');
    expect(entries.map((e) => [e['event_type'], (e['payload'] as Record<string, unknown>)['target']])).toEqual([
      ['token.created', id],
      ['token.rotated', id],
      ['token.revoked', successor],
      ['user.created', userId],
      ['user.disabled', userId],
    ]);
    for (const e of entries) expect(e).toMatchObject({ decision: null, payload: { actor: { by: 'cli', user: null } } });
    const text = JSON.stringify(entries);
    expect(text).not.toContain(token);
    expect(text).not.toContain(rotated.stdout.trim());
    expect(text).not.toContain('bo@example.com');
    expect((await runCli(['ledger', 'verify', '--tenant', 'acme'], env)).stdout).toMatch(/^acme\tok\t5 entries/);
  });

  it('beside a running gateway (its lock held) the change is made, and stderr says it was not chained', async () => {
    expect((await runCli(['tenant', 'create', 'busy'], env)).code).toBe(0);
    const lock = lockDataDir(dataDir, 'gateway', 'the test, as a running gateway');
    let created;
    try {
      created = await runCli(['token', 'create', '--tenant', 'busy', '--role', 'viewer'], env);
    } finally {
      lock.release();
    }
    expect(created.code).toBe(0);
    expect(created.stderr).toMatch(/token\.created \S+ was not chained in tenant busy's ledger: a running gateway holds the ledger/);
    expect(await exported('busy')).toEqual([]);
  });
});
