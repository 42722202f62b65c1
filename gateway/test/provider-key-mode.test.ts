import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '@aduana/shared';
import { loadGatewayConfig, startGateway, type GatewayConfig, type RunningGateway } from '../src/index.js';
import { call } from './helpers/start-test-gateway.js';
import { MockUpstream } from './helpers/mock-upstream.js';
import { threadingUnderTest } from './helpers/threading-under-test.js';

/**
 * UPSTREAM_API_KEY_MODE: `fill` (the default) sends the sidecar's key only when the client forwards none; `replace`
 * sends the sidecar's key whatever the client forwards (the vault-managed key). Either way no key is written to the
 * ledger or the log.
 */
const SIDECAR_KEY = 'sk-vault-managed-5f1c9a';
const CLIENT_KEY = 'sk-client-own-77d2e0';
const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] };

interface Running {
  gw: RunningGateway;
  mock: MockUpstream;
  token: string;
  log: () => string;
  close(): Promise<void>;
}

const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

/** A gateway logging everything (trace) into memory, in front of a mock provider. */
async function start(overrides: Partial<Record<keyof GatewayConfig, string | number | boolean>>): Promise<Running> {
  const mock = await new MockUpstream().start();
  const dataDir = mkdtempSync(join(tmpdir(), 'aduana-keymode-'));
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  const logger = createLogger('test', { level: 'trace', destination: sink });
  const config = loadGatewayConfig({}, { dataDir, port: 0, authPort: 0, quietBootstrap: true, upstreamBaseUrl: mock.url, upstreamApiKey: SIDECAR_KEY, ...threadingUnderTest(), ...overrides });
  const gw = await startGateway({ config, logger });
  await gw.deps.tenants.create('keys', 'enterprise');
  const token = (await gw.deps.tokens.create({ tenantId: 'keys', role: 'operator', name: 'op', expiresInDays: 1 })).token;
  const r: Running = {
    gw,
    mock,
    token,
    log: () => text,
    async close() {
      await gw.close();
      await mock.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  running.push(r);
  return r;
}

/** A plain call, a streamed one, a provider error and a dropped stream: each forwarded with `clientKey` if given. */
async function traffic(r: Running, clientKey: string | null): Promise<void> {
  const headers: Record<string, string> = { 'x-svc-agent-id': 'bot', 'openai-organization': 'org-client' };
  if (clientKey) headers['x-forwarded-authorization'] = `Bearer ${clientKey}`;
  expect((await call(r.gw.url, 'POST', '/v1/proxy/chat/completions', { token: r.token, headers, body: chat })).status).toBe(200);
  expect((await call(r.gw.url, 'POST', '/v1/proxy/chat/completions', { token: r.token, headers, body: { ...chat, stream: true } })).status).toBe(200);
  r.mock.next({ status: 500 });
  expect((await call(r.gw.url, 'POST', '/v1/proxy/chat/completions', { token: r.token, headers, body: chat })).status).toBe(500);
  r.mock.next({ dropAfterChunks: 1 });
  await call(r.gw.url, 'POST', '/v1/proxy/chat/completions', { token: r.token, headers, body: { ...chat, stream: true } });
  expect((await call(r.gw.url, 'GET', '/v1/proxy/models', { token: r.token, headers })).status).toBe(200);
}

/** Everything the gateway kept of the calls: every ledger entry and decision record, and the log. */
async function kept(r: Running): Promise<string> {
  const events = await call(r.gw.url, 'GET', '/v1/events?limit=500', { token: r.token });
  expect(events.body.events.length).toBeGreaterThanOrEqual(5);
  const decisions = await call(r.gw.url, 'GET', '/admin/decisions?limit=500', { token: r.token });
  return `${events.text}\n${decisions.text}\n${r.log()}`;
}

describe('UPSTREAM_API_KEY_MODE', () => {
  it('replace: the provider sees only the sidecar key, also when the client forwards its own', async () => {
    const r = await start({ upstreamApiKeyMode: 'replace' });
    await traffic(r, CLIENT_KEY);
    await traffic(r, null);
    expect(r.mock.received.length).toBe(10);
    for (const got of r.mock.received) {
      expect(got.headers['authorization']).toBe(`Bearer ${SIDECAR_KEY}`);
      expect(JSON.stringify(got.headers)).not.toContain(CLIENT_KEY);
      // The client's routing headers pick whose organisation a key bills: not sent with the sidecar's key.
      expect(got.headers['openai-organization']).toBeUndefined();
    }
    const text = await kept(r);
    expect(text).not.toContain(SIDECAR_KEY);
    expect(text).not.toContain(CLIENT_KEY);
  });

  it("fill (the default): the client's own key goes through; the sidecar key only when the client sends none", async () => {
    const r = await start({});
    await traffic(r, CLIENT_KEY);
    expect(r.mock.received.map((got) => got.headers['authorization'])).toEqual(Array(5).fill(`Bearer ${CLIENT_KEY}`));
    expect(r.mock.received.every((got) => got.headers['openai-organization'] === 'org-client')).toBe(true);
    r.mock.received.length = 0;
    await traffic(r, null);
    expect(r.mock.received.map((got) => got.headers['authorization'])).toEqual(Array(5).fill(`Bearer ${SIDECAR_KEY}`));
    const text = await kept(r);
    expect(text).not.toContain(SIDECAR_KEY);
    expect(text).not.toContain(CLIENT_KEY);
  });

  it('replace without a sidecar key does not start, and the mode must be fill or replace', () => {
    expect(() => loadGatewayConfig({ UPSTREAM_API_KEY_MODE: 'replace' })).toThrow(/UPSTREAM_API_KEY_MODE.*UPSTREAM_API_KEY/);
    expect(() => loadGatewayConfig({ UPSTREAM_API_KEY_MODE: 'swap', UPSTREAM_API_KEY: SIDECAR_KEY })).toThrow(/UPSTREAM_API_KEY_MODE/);
    expect(loadGatewayConfig({}).upstreamApiKeyMode).toBe('fill');
  });
});
