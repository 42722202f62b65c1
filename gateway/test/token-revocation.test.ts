import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockUpstream } from './helpers/mock-upstream.js';
import { assertBuilt, runCli, startCliService, waitExit } from './helpers/run-cli.js';
import { call, expectEnvelope } from './helpers/start-test-gateway.js';

// The gateway and the CLI are separate processes sharing only the data dir, as in a deployment: the revocation is
// made by another process while the gateway keeps serving the token from its hot path.
let dataDir: string;
let mock: MockUpstream;

beforeAll(async () => {
  assertBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-revoke-'));
  mock = await new MockUpstream().start();
});
afterAll(async () => {
  await mock.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] };

describe('token revocation through the CLI while the gateway runs', () => {
  it('refuses the token on the proxy within 1 s of the revocation, and never serves it again', async () => {
    const env = { DATA_DIR: dataDir, GATEWAY_PORT: '0', AUTH_PORT: '0', LOG_LEVEL: 'silent', ADUANA_QUIET_BOOTSTRAP: 'true', UPSTREAM_BASE_URL: mock.url };
    const { child, match } = await startCliService(['gateway'], env, /API and proxy on (http:\/\/[\d.:]+)/);
    const url = match[1] as string;
    try {
      const admin = readFileSync(join(dataDir, 'bootstrap-admin.token'), 'utf8').trim();
      expect((await runCli(['tenant', 'create', 'rev', '--plan', 'enterprise'], env)).code).toBe(0);
      const created = await runCli(['token', 'create', '--tenant', 'rev', '--role', 'operator', '--name', 'agent'], env);
      expect(created.code).toBe(0);
      const token = created.stdout.trim();
      const proxy = () => call(url, 'POST', '/v1/proxy/chat/completions', { token, headers: { 'x-svc-agent-id': 'bot' }, body: chat });

      // The token in steady use on the hot path (whatever the gateway keeps in memory about it is warm).
      for (let i = 0; i < 10; i++) expect((await proxy()).status).toBe(200);

      const list = await runCli(['token', 'list', '--tenant', 'rev'], env);
      const id = list.stdout.split('\n').find((l) => l.endsWith('\tagent'))?.split('\t')[0] as string;
      expect(id).toMatch(/^tok_/);
      const revoked = await runCli(['token', 'revoke', id], env);
      expect(revoked.code).toBe(0);
      const revokedAt = Date.now();

      // From here on: a 401 within 1 s, then nothing but 401s.
      let firstRefusalMs = -1;
      const seen: number[] = [];
      while (Date.now() - revokedAt < 1_500) {
        const r = await proxy();
        seen.push(r.status);
        if (r.status === 401 && firstRefusalMs < 0) {
          firstRefusalMs = Date.now() - revokedAt;
          expectEnvelope(r, 401, 'authentication_error');
        }
        await new Promise((res) => setTimeout(res, 25));
      }
      expect(firstRefusalMs).toBeGreaterThanOrEqual(0);
      expect(firstRefusalMs).toBeLessThanOrEqual(1_000);
      expect(seen.slice(seen.indexOf(401)).every((s) => s === 401)).toBe(true);
      // Another token of the tenant is unaffected.
      expect((await call(url, 'GET', '/v1/policies', { token: admin })).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await waitExit(child)).toBe(0);
  }, 60_000);
});
