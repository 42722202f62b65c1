import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialStore } from '../src/credentials/credential-store.js';
import { openGatewayStore } from '../src/storage/gateway-store.js';
import { assertBuilt, runCli, runCliWithInput, startCliService, waitExit, type CliResult } from './helpers/run-cli.js';
import { call } from './helpers/start-test-gateway.js';

/** `aduana credential set|list|delete` (docs/routing.md, "Provider credentials"), run as users run it. */
const KEY = '3c'.repeat(32);
const secret = (): string => `sk-${randomBytes(24).toString('hex')}`;

let dataDir: string;
let env: Record<string, string>;
const outputs: CliResult[] = [];

async function cli(args: string[], input?: string, extra: Record<string, string> = {}): Promise<CliResult> {
  const r = input === undefined ? await runCli(args, { ...env, ...extra }) : await runCliWithInput(args, { ...env, ...extra }, input);
  outputs.push(r);
  return r;
}

/** What the data dir's store resolves for a name, opened in this process beside the commands'. */
async function resolved(tenant: string, name: string): Promise<string | null> {
  const store = openGatewayStore(dataDir);
  try {
    return new CredentialStore(store.providerCredentials, KEY, {}).resolve(tenant, name);
  } finally {
    await store.close();
  }
}

beforeAll(() => {
  assertBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-cli-credentials-'));
  env = { DATA_DIR: dataDir, GATEWAY_PORT: '0', AUTH_PORT: '0', LOG_LEVEL: 'silent', ADUANA_QUIET_BOOTSTRAP: 'true', CREDENTIALS_KEY: KEY };
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('aduana credential', () => {
  it('sets a credential from standard input, lists, rotates and deletes it, each change chained; never prints the secret', async () => {
    expect((await cli(['tenant', 'create', 'default'])).code).toBe(0);
    const first = secret();
    const set = await cli(['credential', 'set', 'openai-prod'], `${first}\n`);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe('stored openai-prod\n');
    expect(await resolved('default', 'openai-prod')).toBe(first);

    const second = secret();
    const rotated = await cli(['credential', 'set', 'openai-prod', '--tenant', 'default'], second);
    expect(rotated.stdout).toBe('rotated openai-prod\n');
    expect(await resolved('default', 'openai-prod')).toBe(second);

    const list = await cli(['credential', 'list', '--no-header'], undefined, { ADUANA_CREDENTIAL_FROM_ENV: secret() });
    expect(list.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^openai-prod\tstored\t\d{4}-\d\d-\d\dT[\d:.]+Z\tcli$/), 'from_env\tenvironment (ADUANA_CREDENTIAL_FROM_ENV)\t-\t-']);

    expect((await cli(['credential', 'delete', 'openai-prod'])).stdout).toBe('deleted openai-prod\n');
    expect(await resolved('default', 'openai-prod')).toBeNull();
    expect((await cli(['credential', 'delete', 'openai-prod'])).code).toBe(2);

    const exported = await cli(['ledger', 'export', '--tenant', 'default']);
    const entries = exported.stdout.trim().split('\n').slice(1).map((line) => JSON.parse(line) as { event_type: string; payload: Record<string, unknown> });
    expect(entries.map((e) => e.event_type)).toEqual(['credential.set', 'credential.rotated', 'credential.deleted']);
    for (const e of entries) expect(e.payload).toMatchObject({ actor: { by: 'cli', user: null }, target: 'openai-prod' });
    for (const r of outputs) for (const s of [first, second]) expect(`${r.stdout}${r.stderr}`).not.toContain(s);
  });

  it('refuses without CREDENTIALS_KEY, a bad name, an empty secret or an unknown tenant with exit 2, storing nothing', async () => {
    const noKey = await cli(['credential', 'set', 'other', '--tenant', 'default'], secret(), { CREDENTIALS_KEY: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('CREDENTIALS_KEY');
    expect((await cli(['credential', 'set', 'Other', '--tenant', 'default'], secret())).code).toBe(2);
    expect((await cli(['credential', 'set', 'other', '--tenant', 'default'], '\n')).stderr).toMatch(/secret: a non-empty string/);
    expect((await cli(['credential', 'set', 'other', '--tenant', 'default'], 'x'.repeat(16 * 1024 + 1))).code).toBe(2);
    const unknown = await cli(['credential', 'set', 'other', '--tenant', 'nope'], secret());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no tenant nope');
    expect((await cli(['credential', 'list'])).stdout).toBe('NAME\tSOURCE\tUPDATED\tBY\n');
  });

  it('beside a running gateway: the change is made and seen by its API at once, and stderr says it was not chained', async () => {
    const beside = mkdtempSync(join(tmpdir(), 'aduana-cli-credentials-beside-'));
    const besideEnv = { ...env, DATA_DIR: beside };
    const { child, match } = await startCliService(['gateway'], besideEnv, /API and proxy on (http:\/\/[\d.:]+)/);
    try {
      const admin = readFileSync(join(beside, 'bootstrap-admin.token'), 'utf8').trim();
      const value = secret();
      const set = await runCliWithInput(['credential', 'set', 'anthropic'], besideEnv, value);
      expect(set.code, set.stderr).toBe(0);
      expect(set.stderr).toContain('credential.set anthropic was not chained');
      const listed = await call(match[1] as string, 'GET', '/v1/credentials', { token: admin });
      expect(listed.body.data).toEqual([expect.objectContaining({ name: 'anthropic', source: 'stored', updated_by: 'cli' })]);
      expect(listed.text).not.toContain(value);
    } finally {
      child.kill('SIGTERM');
      await waitExit(child);
      rmSync(beside, { recursive: true, force: true });
    }
  }, 60_000);
});
