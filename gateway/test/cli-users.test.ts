import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, runCliWithInput, startCliService, waitExit } from './helpers/run-cli.js';
import { call, expectEnvelope } from './helpers/start-test-gateway.js';
import { poll } from '../../shared/test/helpers/poll.js';

let dataDir: string;
let env: Record<string, string>;

beforeAll(() => {
  assertBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-cli-users-'));
  env = { DATA_DIR: dataDir, GATEWAY_PORT: '0', AUTH_PORT: '0', LOG_LEVEL: 'silent', ADUANA_QUIET_BOOTSTRAP: 'true', PASSWORD_SCRYPT_LOG_N: '12' };
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('aduana user and aduana token rotate (process)', () => {
  it('creates a user with the password from standard input, lists and disables it; rotates a token with a grace period', async () => {
    const { child, match } = await startCliService(['gateway'], env, /API and proxy on (http:\/\/[\d.:]+), auth service on (http:\/\/[\d.:]+)/);
    const [, url, authUrl] = match as unknown as [string, string, string];
    try {
      const admin = readFileSync(join(dataDir, 'bootstrap-admin.token'), 'utf8').trim();
      const created = await runCliWithInput(['user', 'create', '--tenant', 'default', '--email', 'first@cli.example', '--name', 'First Admin', '--role', 'admin'], env, 'a long enough password\n');
      expect(created.code, created.stderr).toBe(0);
      const id = created.stdout.trim();
      expect(id).toMatch(/^usr_/);
      // A password too short, from stdin, is refused and nothing is written.
      expect((await runCliWithInput(['user', 'create', '--tenant', 'default', '--email', 'short@cli.example', '--name', 'S', '--role', 'viewer'], env, 'short\n')).code).toBe(2);
      // The same e-mail twice, an unknown tenant, a bad role.
      expect((await runCliWithInput(['user', 'create', '--tenant', 'default', '--email', 'FIRST@cli.example', '--name', 'F', '--role', 'viewer'], env, 'a long enough password\n')).code).toBe(2);
      expect((await runCliWithInput(['user', 'create', '--tenant', 'nope', '--email', 'n@cli.example', '--name', 'N', '--role', 'viewer'], env, 'a long enough password\n')).code).toBe(2);
      expect((await runCliWithInput(['user', 'create', '--tenant', 'default', '--email', 'r@cli.example', '--name', 'R', '--role', 'root'], env, 'a long enough password\n')).code).toBe(2);
      const list = await runCli(['user', 'list', '--tenant', 'default', '--no-header'], env);
      expect(list.stdout.trim().split('\n')).toEqual([`${id}\tfirst@cli.example\tadmin\tpassword\tactive\tFirst Admin`]);

      // The running gateway sees the new user at once.
      const login = await call(authUrl, 'POST', '/login', { body: { email: 'first@cli.example', password: 'a long enough password' } });
      expect(login.status, login.text).toBe(200);
      const session = login.body.session_token as string;
      expect((await call(url, 'GET', '/admin/users', { token: session })).body.data).toHaveLength(1);

      // token rotate: a successor works, the old one keeps working within its grace period.
      const minted = await call(authUrl, 'POST', '/token', { token: session, body: { name: 'deploy', role: 'operator', expires_in_days: 30 } });
      const rotated = await runCli(['token', 'rotate', minted.body.id, '--grace-hours', '2'], env);
      expect(rotated.code, rotated.stderr).toBe(0);
      const successor = rotated.stdout.trim();
      expect(successor).toMatch(/^adu_pat_/);
      const vNew = await call(authUrl, 'GET', '/verify', { token: successor });
      expect(vNew.body).toMatchObject({ active: true, role: 'operator', email: 'first@cli.example' });
      const oldRecord = (await runCli(['token', 'list', '--tenant', 'default'], env)).stdout.split('\n').find((l) => l.startsWith(minted.body.id)) as string;
      const oldExpiry = Date.parse(oldRecord.split('\t')[5] as string);
      expect(oldExpiry - Date.now()).toBeLessThanOrEqual(2 * 3_600_000);
      expect(oldExpiry - Date.now()).toBeGreaterThan(3_600_000);
      expect((await call(authUrl, 'GET', '/verify', { token: minted.body.token })).body.active).toBe(true);
      // With no grace, the old token stops at once. The CLI is another process: the running gateway sees its change
      // within a quarter of a second (its cached credentials re-read the revision at most that often), so the check
      // polls, for up to a second, then checks the refusal holds.
      const second = await runCli(['token', 'rotate', vNew.body.tokenId, '--grace-hours', '0'], env);
      expect(second.code).toBe(0);
      const verifySuccessor = async () => (await call(authUrl, 'GET', '/verify', { token: successor })).body.active as boolean;
      const active = await poll(verifySuccessor, { what: 'the rotated token to be refused', until: (a) => !a, timeoutMs: 1_000 });
      expect(active).toBe(false);
      expect(await verifySuccessor()).toBe(false);
      expect((await runCli(['token', 'rotate', 'tok_nope'], env)).code).toBe(2);

      const disabled = await runCli(['user', 'disable', id, '--tenant', 'default'], env);
      expect(disabled.code).toBe(0);
      expectEnvelope(await call(authUrl, 'GET', '/me', { token: session }), 401, 'authentication_error');
      expect((await runCli(['user', 'list', '--tenant', 'default'], env)).stdout).toContain('\tdisabled\t');
      expect(admin).toMatch(/^adu_pat_/);
    } finally {
      child.kill('SIGTERM');
      await waitExit(child);
    }
  }, 120_000);
});
