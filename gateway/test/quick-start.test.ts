import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '@aduana/shared';
import { loadGatewayConfig, startGateway, type RunningGateway } from '../src/index.js';
import { call } from './helpers/start-test-gateway.js';
import { MockUpstream } from './helpers/mock-upstream.js';

/**
 * The README's quick start as a new team follows it: `npm start` on an empty data dir (every setting at its default
 * but the ports and the data dir), the admin token read where the README says the first start writes it.
 */
let gw: RunningGateway | null = null;
let mock: MockUpstream | null = null;
let dataDir = '';
/** The gateway's log lines (its request lines among them), parsed. */
let logLines: Array<Record<string, unknown>> = [];

afterEach(async () => {
  await gw?.close();
  gw = null;
  await mock?.close();
  mock = null;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function quickStart(env: Record<string, string> = {}): Promise<{ url: string; token: string }> {
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-quick-'));
  logLines = [];
  const config = loadGatewayConfig({ DATA_DIR: dataDir, GATEWAY_PORT: '0', AUTH_PORT: '0', ...env });
  const logger = createLogger('test', { level: 'info', destination: { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) } });
  gw = await startGateway({ config, logger });
  const token = readFileSync(join(dataDir, 'bootstrap-admin.token'), 'utf8').trim();
  return { url: gw.url, token };
}

describe('the quick start', () => {
  it("the bootstrap tenant is not throttled by a plan meant for a shared gateway's tenants: 30 quick calls, no 429", async () => {
    const { url, token } = await quickStart();
    const statuses = await Promise.all(Array.from({ length: 30 }, () => call(url, 'GET', '/v1/policies', { token }).then((r) => r.status)));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  it('then 200 calls through the proxy with the official openai SDK, given nothing but its base URL and key (the agent from SIDECAR_AGENT_ID): no 429', async () => {
    mock = await new MockUpstream().start();
    // The sidecar's own settings: where the provider is, its key, and the one agent it sits beside.
    const { url, token } = await quickStart({ UPSTREAM_BASE_URL: mock.url, UPSTREAM_API_KEY: 'sk-the-sidecars-key', SIDECAR_AGENT_ID: 'support-bot' });
    const client = new OpenAI({ baseURL: `${url}/v1/proxy`, apiKey: token });
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `step ${i} of the task` }] })),
    );
    expect(answers.every((a) => a.choices[0]?.message.role === 'assistant')).toBe(true);
    expect(mock.received).toHaveLength(200);
    expect(mock.received.every((r) => r.headers['authorization'] === 'Bearer sk-the-sidecars-key' && r.headers['x-svc-agent-id'] === undefined)).toBe(true);
    // The SDK retries a 429 by itself, so the answers alone would hide one: the gateway's request lines show every
    // answer it gave. Exactly 200 proxied calls, every one a 200, every one the sidecar's agent's.
    const proxied = logLines.filter((l) => l['msg'] === 'request' && l['path'] === '/v1/proxy/chat/completions');
    expect(proxied).toHaveLength(200);
    expect(proxied.filter((l) => l['status'] !== 200)).toEqual([]);
    expect(new Set(proxied.map((l) => l['agent']))).toEqual(new Set(['support-bot']));
  });
});
