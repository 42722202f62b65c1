import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSwitchableSite, type SwitchableSite } from './fixtures/switchable-site.js';
import { removeDataDir, tempDataDir } from './helpers/keyed-scanner.js';
import { assertCliBuilt, runScannerCli, startScannerProcess, stopProcess } from './helpers/scanner-cli.js';
import { poll } from '../../shared/test/helpers/poll.js';

/**
 * `aduana scanner-key` against the data directory of a scanner running in another process: keys issued and revoked
 * there take effect on the service's next request. Also the scheduler with two service processes on one directory.
 */
let site: SwitchableSite;

beforeAll(async () => {
  assertCliBuilt();
  site = await startSwitchableSite();
});

afterAll(async () => {
  await site?.close();
});

function env(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { DATA_DIR: dataDir, SCANNER_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', SCANNER_ALLOW_PRIVATE: '127.0.0.0/8', ...extra };
}

async function get(url: string, key: string): Promise<number> {
  return (await fetch(url, { headers: { authorization: `Bearer ${key}` } })).status;
}

describe('aduana scanner-key with the service running', () => {
  it('the first start prints the bootstrap key once; create, list and revoke act on the running service at once', async () => {
    const dataDir = tempDataDir();
    const first = await startScannerProcess(env(dataDir));
    try {
      const bootstrap = readFileSync(join(dataDir, 'bootstrap-scanner.key'), 'utf8').trim();
      expect(first.output()).toContain(bootstrap);
      expect(await get(`${first.url}/api/v1/scans`, bootstrap)).toBe(200);

      const created = await runScannerCli(['scanner-key', 'create', '--org', 'acme'], env(dataDir));
      expect(created.code).toBe(0);
      const key = created.stdout.trim();
      expect(key).toMatch(/^adu_sk_/);
      expect(await get(`${first.url}/api/v1/overview`, key)).toBe(200);

      const list = await runScannerCli(['scanner-key', 'list'], env(dataDir));
      const line = list.stdout.split('\n').find((l) => l.includes('\tacme\t'));
      expect(line).toBeDefined();
      expect(list.stdout).not.toContain(key);
      const id = line?.split('\t')[0] ?? '';

      const revoked = await runScannerCli(['scanner-key', 'revoke', id], env(dataDir));
      expect(revoked.code).toBe(0);
      // The very next request is refused: nothing cached a "valid" answer.
      expect(await get(`${first.url}/api/v1/overview`, key)).toBe(401);
      expect(await get(`${first.url}/api/v1/overview`, bootstrap)).toBe(200);
      expect((await runScannerCli(['scanner-key', 'revoke', '00000000-0000-4000-8000-000000000000'], env(dataDir))).code).toBe(2);
      expect((await runScannerCli(['scanner-key', 'create'], env(dataDir))).code).toBe(2);
    } finally {
      await stopProcess(first.child);
    }
    // A restart does not bootstrap again.
    const again = await startScannerProcess(env(dataDir));
    try {
      expect(again.output()).not.toContain('first start');
    } finally {
      await stopProcess(again.child);
      removeDataDir(dataDir);
    }
    // Nine node processes start in this test: a generous bound for a loaded machine.
  }, 120_000);

  it('two service processes on one data directory run a due monitor once', async () => {
    const dataDir = tempDataDir();
    const idle = await startScannerProcess(env(dataDir, { SCANNER_SCHEDULER_TICK_MS: '3600000' }));
    const key = readFileSync(join(dataDir, 'bootstrap-scanner.key'), 'utf8').trim();
    const url = `${site.origin}/two-processes`;
    const res = await fetch(`${idle.url}/api/v1/monitors`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ url, cadenceHours: 1 }) });
    expect(res.status).toBe(201);
    await stopProcess(idle.child);
    const fast = env(dataDir, { SCANNER_SCHEDULER_TICK_MS: '20' });
    const [a, b] = await Promise.all([startScannerProcess(fast), startScannerProcess(fast)]);
    try {
      const scansOfA = async () => ((await (await fetch(`${a.url}/api/v1/scans`, { headers: { authorization: `Bearer ${key}` } })).json()) as { items: { url: string }[] }).items;
      await poll(scansOfA, { what: 'a scan listed by the first service', until: (items) => items.length > 0, timeoutMs: 15_000 });
      await new Promise((r) => setTimeout(r, 1_000));
      const fromB = ((await (await fetch(`${b.url}/api/v1/scans`, { headers: { authorization: `Bearer ${key}` } })).json()) as { items: { url: string }[] }).items;
      expect(fromB.filter((i) => i.url === url)).toHaveLength(1);
    } finally {
      await Promise.all([stopProcess(a.child), stopProcess(b.child)]);
      removeDataDir(dataDir);
    }
  }, 120_000);
});
