import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '@aduana/shared';
import { loadGatewayConfig, startGateway, type RunningGateway } from '../src/index.js';
import { call } from './helpers/start-test-gateway.js';

/**
 * The README's quick start as a new team follows it: `npm start` on an empty data dir (every setting at its default
 * but the ports and the data dir), the admin token read where the README says the first start writes it.
 */
let gw: RunningGateway | null = null;
let dataDir = '';

afterEach(async () => {
  await gw?.close();
  gw = null;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function quickStart(env: Record<string, string> = {}): Promise<{ url: string; token: string }> {
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-quick-'));
  const config = loadGatewayConfig({ DATA_DIR: dataDir, GATEWAY_PORT: '0', AUTH_PORT: '0', ...env });
  gw = await startGateway({ config, logger: createLogger('test', { level: 'silent' }) });
  const token = readFileSync(join(dataDir, 'bootstrap-admin.token'), 'utf8').trim();
  return { url: gw.url, token };
}

describe('the quick start', () => {
  it("the bootstrap tenant is not throttled by a plan meant for a shared gateway's tenants: 30 quick calls, no 429", async () => {
    const { url, token } = await quickStart();
    const statuses = await Promise.all(Array.from({ length: 30 }, () => call(url, 'GET', '/v1/policies', { token }).then((r) => r.status)));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });
});
