import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, startCliService, waitExit } from './helpers/run-cli.js';
import { call, expectEnvelope } from './helpers/start-test-gateway.js';

let dataDir: string;
let env: Record<string, string>;

beforeAll(() => {
  assertBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-cli-'));
  env = { DATA_DIR: dataDir, GATEWAY_PORT: '0', AUTH_PORT: '0', LOG_LEVEL: 'silent', ADUANA_QUIET_BOOTSTRAP: 'true' };
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('aduana gateway (process)', () => {
  it('bootstraps an empty data dir, serves, honours a CLI revocation at once, and stops cleanly on SIGTERM', async () => {
    const { child, match } = await startCliService(['gateway'], env, /API and proxy on (http:\/\/[\d.:]+), auth service on (http:\/\/[\d.:]+)/);
    const [, url] = match as unknown as [string, string, string];
    try {
      const file = join(dataDir, 'bootstrap-admin.token');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const admin = readFileSync(file, 'utf8').trim();
      expect(admin).toMatch(/^adu_pat_/);
      expect((await call(url, 'GET', '/v1/policies', { token: admin })).status).toBe(200);

      // Tenants and tokens from the CLI, while the gateway runs.
      const tenant = await runCli(['tenant', 'create', 'cli-corp', '--plan', 'professional'], env);
      expect(tenant.code).toBe(0);
      expect(JSON.parse(tenant.stdout)).toMatchObject({ id: 'cli-corp', plan: 'professional' });
      expect((await runCli(['tenant', 'create', 'cli-corp'], env)).code).toBe(2);
      expect((await runCli(['tenant', 'create', 'Bad Name!'], env)).code).toBe(2);
      expect((await runCli(['tenant', 'create', 'x', '--plan', 'platinum'], env)).code).toBe(2);

      const created = await runCli(['token', 'create', '--tenant', 'cli-corp', '--role', 'operator', '--name', 'bot', '--expires-in-days', '5'], env);
      expect(created.code).toBe(0);
      const token = created.stdout.trim();
      expect(token).toMatch(/^adu_pat_[0-9A-Za-z]{36}$/);
      expect((await call(url, 'POST', '/v1/decide', { token, body: { agent_id: 'a', action: { type: 'x' } } })).body.envelope.tenant_id).toBe('cli-corp');
      expectEnvelope(await call(url, 'POST', '/v1/policies', { token, body: {} }), 403, 'permission_denied');

      // --agent binds the token to one agent: it may not name another.
      const boundRun = await runCli(['token', 'create', '--tenant', 'cli-corp', '--role', 'operator', '--agent', 'cli-bot'], env);
      expect(boundRun.code).toBe(0);
      expect(boundRun.stderr).toContain('bound to agent cli-bot');
      const bound = boundRun.stdout.trim();
      expect((await call(url, 'POST', '/v1/decide', { token: bound, body: { agent_id: 'cli-bot', action: { type: 'x' } } })).status).toBe(200);
      expect(expectEnvelope(await call(url, 'POST', '/v1/decide', { token: bound, body: { agent_id: 'other', action: { type: 'x' } } }), 403, 'permission_denied').rule).toBe('agent_binding');
      expect((await runCli(['token', 'create', '--tenant', 'cli-corp', '--role', 'operator', '--agent', 'bad\u0001id'], env)).code).toBe(2);

      const list = await runCli(['token', 'list', '--tenant', 'cli-corp'], env);
      expect(list.stdout).toContain('operator\tactive');
      expect(list.stdout).not.toContain(token);
      const id = list.stdout.split('\n')[1]?.split('\t')[0] as string; // the row under the header
      expect((await runCli(['token', 'revoke', id], env)).code).toBe(0);
      expectEnvelope(await call(url, 'GET', '/v1/policies', { token }), 401, 'authentication_error');
      expect((await runCli(['token', 'list', '--tenant', 'cli-corp'], env)).stdout).toContain('revoked');
      expect((await runCli(['token', 'create', '--tenant', 'nope', '--role', 'admin'], env)).code).toBe(2);
      expect((await runCli(['token', 'create', '--tenant', 'cli-corp', '--role', 'god'], env)).code).toBe(2);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await waitExit(child)).toBe(0);
  }, 120_000); // a dozen CLI processes, one after another: minutes on a loaded two-core machine

  it('a second start on the same data dir does not bootstrap again', async () => {
    const before = readFileSync(join(dataDir, 'bootstrap-admin.token'), 'utf8');
    const { child, match } = await startCliService(['gateway'], env, /API and proxy on (http:\/\/[\d.:]+)/);
    try {
      expect(readFileSync(join(dataDir, 'bootstrap-admin.token'), 'utf8')).toBe(before);
      expect((await call(match[1] as string, 'GET', '/v1/policies', { token: before.trim() })).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await waitExit(child)).toBe(0);
  });

  it('refuses to start with a bad setting, naming it', async () => {
    const r = await runCli(['gateway'], { ...env, GATEWAY_PORT: 'eighty' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('GATEWAY_PORT');
  });
});
