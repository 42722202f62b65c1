import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '@aduana/shared';
import { loadGatewayConfig, startGateway, type RunningGateway } from '../src/index.js';
import { call, expectEnvelope } from './helpers/start-test-gateway.js';
import { MockGemini } from './helpers/mock-gemini.js';
import { entryWithPromptTokens } from './helpers/proxy-ledger.js';
import { threadingUnderTest } from './helpers/threading-under-test.js';

// Gemini's API takes its key in `?key=` as well as in `x-goog-api-key` (docs/decisions.md, "Other wire formats"), so
// the Gemini routes read the PAT from there too. The query never reaches the provider, the ledger or a log line: a
// gateway logging everything (trace) into memory shows it.

let gw: RunningGateway;
let mock: MockGemini;
let dataDir: string;
let log = '';
let operator: string;
let admin: string;

const GENERATE = '/v1/proxy/gemini/v1beta/models/gemini-2.0-flash:generateContent';
const headers = { 'x-svc-agent-id': 'query-key-agent', 'x-forwarded-api-key': 'google-provider-key' };
const body = { contents: [{ role: 'user', parts: [{ text: 'Capital of France?' }] }] };

beforeAll(async () => {
  mock = await new MockGemini().start();
  dataDir = mkdtempSync(join(tmpdir(), 'aduana-gemini-key-'));
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      log += chunk.toString();
      done();
    },
  });
  const config = loadGatewayConfig({}, { dataDir, port: 0, authPort: 0, quietBootstrap: true, upstreamGeminiBaseUrl: mock.url, upstreamAnthropicBaseUrl: mock.url, ...threadingUnderTest() });
  gw = await startGateway({ config, logger: createLogger('test', { level: 'trace', destination: sink }) });
  await gw.deps.tenants.create('gemini-key', 'enterprise');
  const token = async (role: 'admin' | 'operator') => (await gw.deps.tokens.create({ tenantId: 'gemini-key', role, name: role, expiresInDays: 1 })).token;
  operator = await token('operator');
  admin = await token('admin');
});
afterAll(async () => {
  await gw?.close();
  await mock?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});
beforeEach(() => mock.reset());

/** Everything the gateway kept: the tenant's ledger, its decision records and the log. */
async function kept(): Promise<string> {
  const events = await call(gw.url, 'GET', '/v1/events?limit=500', { token: admin });
  const decisions = await call(gw.url, 'GET', '/admin/decisions?limit=500', { token: admin });
  return `${events.text}\n${decisions.text}\n${log}`;
}

describe('the PAT in ?key= on the Gemini routes', () => {
  it('generateContent with ?key=<PAT> and no header: answered; the provider sees a path without the query, and nothing keeps the PAT', async () => {
    mock.next({ text: 'Paris.', usage: { promptTokenCount: 4321, candidatesTokenCount: 2 } });
    const r = await call(gw.url, 'POST', `${GENERATE}?key=${operator}`, { headers, body });
    expect(r.status, r.text).toBe(200);
    expect(r.body.candidates[0].content.parts[0].text).toBe('Paris.');
    expect(r.headers['x-svc-verdict']).toBe('ALLOWED');
    expect(mock.received).toHaveLength(1);
    const got = mock.received[0]!;
    expect(got.path).toBe('/v1beta/models/gemini-2.0-flash:generateContent');
    expect(got.headers['x-goog-api-key']).toBe('google-provider-key');
    expect(JSON.stringify(got)).not.toContain(operator);
    expect((await entryWithPromptTokens(gw.url, admin, 4321)).event_type).toBe('proxy.gemini.generateContent');
    // The call's request line is in the log, its path without the query.
    expect(log).toContain('"path":"/v1/proxy/gemini/v1beta/models/gemini-2.0-flash:generateContent"');
    expect(await kept()).not.toContain(operator);
  });

  it('streamGenerateContent?alt=sse&key=<PAT>: streamed; the provider is asked with alt=sse alone', async () => {
    mock.next({ chunks: ['The ', 'answer.'], usage: { promptTokenCount: 4322, candidatesTokenCount: 2 } });
    const r = await call(gw.url, 'POST', `/v1/proxy/gemini/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse&key=${operator}`, { headers, body });
    expect(r.status, r.text).toBe(200);
    expect(r.text).toContain('"text":"The "');
    expect(mock.received.map((g) => g.path)).toEqual(['/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse']);
    await entryWithPromptTokens(gw.url, admin, 4322);
    expect(await kept()).not.toContain(operator);
  });

  it('a wrong ?key= is the documented 401, nothing forwarded, the wrong key kept nowhere', async () => {
    const wrong = `${operator.slice(0, -6)}zzzzzz`;
    const r = await call(gw.url, 'POST', `${GENERATE}?key=${wrong}`, { headers, body });
    expectEnvelope(r, 401, 'authentication_error');
    expect(r.headers['x-svc-verdict']).toBe('DENIED');
    expect(mock.received).toHaveLength(0);
    expect(await kept()).not.toContain(wrong);
  });

  it('a header key comes first: a good x-goog-api-key with a wrong ?key= is answered', async () => {
    mock.next({ text: 'ok', usage: { promptTokenCount: 4323, candidatesTokenCount: 1 } });
    const r = await call(gw.url, 'POST', `${GENERATE}?key=not-a-pat`, { headers: { ...headers, 'x-goog-api-key': operator }, body });
    expect(r.status, r.text).toBe(200);
    expect(mock.received[0]!.path).toBe('/v1beta/models/gemini-2.0-flash:generateContent');
  });

  it('only the Gemini routes read ?key=: on the Anthropic route it is no credential (401, nothing forwarded)', async () => {
    const r = await call(gw.url, 'POST', `/v1/proxy/anthropic/v1/messages?key=${operator}`, {
      headers,
      body: { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
    });
    expectEnvelope(r, 401, 'authentication_error');
    expect(mock.received).toHaveLength(0);
  });
});
