import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, expectEnvelope, type TestGateway } from './helpers/start-test-gateway.js';
import type { MockUpstream } from './helpers/mock-upstream.js';
import { closeGatewayWithMock, startGatewayWithMock } from './helpers/gateway-with-mock.js';

/**
 * Policies judge every string a provider will read (keys included), and the upstream receives exactly the object that
 * was judged: re-serialised after redaction, never the client's raw bytes; duplicate keys are refused (docs/policies.md).
 */
let t: TestGateway;
let mock: MockUpstream;
let filtered: Awaited<ReturnType<TestGateway['tenant']>>;
let redacting: Awaited<ReturnType<TestGateway['tenant']>>;
let plain: Awaited<ReturnType<TestGateway['tenant']>>;

const H = { 'x-svc-agent-id': 'content-agent' };
const SECRET = 'drop table users';

beforeAll(async () => {
  ({ t, mock } = await startGatewayWithMock({ upstreamApiKey: 'sk-test' }));
  filtered = await t.tenant('content-filtered');
  redacting = await t.tenant('content-redacting');
  plain = await t.tenant('content-plain');
  const f = await call(t.url, 'POST', '/v1/policies', { token: filtered.admin, body: { name: 'sql', type: 'content_filter', risk: 90, rules: { patterns: ['(?i)drop\\s+table'], action: 'DENY' } } });
  expect(f.status).toBe(200);
  const p = await call(t.url, 'POST', '/v1/policies', { token: redacting.admin, body: { name: 'pii', type: 'pii_redaction', risk: 10, rules: { entities: ['EMAIL'], action: 'REDACT', target: 'input' } } });
  expect(p.status).toBe(200);
});
afterAll(() => closeGatewayWithMock({ t, mock }));
beforeEach(() => mock.reset());

const msgs = [{ role: 'user', content: 'hello' }];
const proxy = (token: string, path: string, body: unknown) => call(t.url, 'POST', `/v1/proxy${path}`, { token, headers: H, body });

describe('every string the provider reads is judged', () => {
  const hidden: [string, string, Record<string, unknown>][] = [
    ['messages[].name', '/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', name: SECRET, content: 'hi' }] }],
    ['tools[].function.description', '/chat/completions', { model: 'gpt-4o-mini', messages: msgs, tools: [{ type: 'function', function: { name: 'f', description: SECRET, parameters: { type: 'object' } } }] }],
    ['prediction.content', '/chat/completions', { model: 'gpt-4o-mini', messages: msgs, prediction: { type: 'content', content: SECRET } }],
    [
      'response_format schema description',
      '/chat/completions',
      { model: 'gpt-4o-mini', messages: msgs, response_format: { type: 'json_schema', json_schema: { name: 's', schema: { type: 'object', properties: { x: { type: 'string', description: SECRET } } } } } },
    ],
    ['a tool parameter named after the secret (an object key)', '/chat/completions', { model: 'gpt-4o-mini', messages: msgs, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { [SECRET]: { type: 'string' } } } } }] }],
    ['completions suffix', '/completions', { model: 'gpt-3.5-turbo-instruct', prompt: 'hello', suffix: SECRET }],
  ];
  for (const [where, path, body] of hidden) {
    it(`a content filter sees ${where}: 403, the upstream is not called`, async () => {
      const r = await proxy(filtered.operator, path, body);
      expect(expectEnvelope(r, 403, 'svc_policy_violation').rule).not.toBe('');
      expect(mock.received.length).toBe(0);
    });
  }

  it('PII in a tool description is redacted in what the upstream receives', async () => {
    const body = { model: 'gpt-4o-mini', messages: msgs, tools: [{ type: 'function', function: { name: 'f', description: 'mail ana@example.com', parameters: { type: 'object' } } }] };
    const r = await proxy(redacting.operator, '/chat/completions', body);
    expect(r.status).toBe(200);
    const sent = JSON.stringify(mock.received[0]!.body);
    expect(sent).not.toContain('ana@example.com');
    expect(sent).toContain('[REDACTED:EMAIL]');
  });

  it('token-id prompts cannot be judged: 400 when input policies are active, forwarded when none are', async () => {
    const r = await proxy(filtered.operator, '/completions', { model: 'gpt-3.5-turbo-instruct', prompt: [1, 2, 3] });
    expect(expectEnvelope(r, 400, 'invalid_request').message).toMatch(/token/);
    const e = await proxy(filtered.operator, '/embeddings', { model: 'text-embedding-3-small', input: [[1, 2], [3]] });
    expectEnvelope(e, 400, 'invalid_request');
    expect(mock.received.length).toBe(0);
    const ok = await proxy(plain.operator, '/completions', { model: 'gpt-3.5-turbo-instruct', prompt: [1, 2, 3] });
    expect(ok.status).toBe(200);
  });

  it('the upstream gets the judged object re-serialised, not the raw bytes', async () => {
    const raw = `{ "model" : "gpt-4o-mini",\n\n   "messages" : [ { "role": "user", "content": "h\\u0065llo" } ] }`;
    const r = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: plain.operator, headers: { ...H, 'content-type': 'application/json' }, rawBody: raw });
    expect(r.status).toBe(200);
    const got = mock.received[0]!;
    const compact = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] });
    expect(Number(got.headers['content-length'])).toBe(Buffer.byteLength(compact));
  });
});

describe('duplicate JSON keys are refused', () => {
  it('on the proxy: a body with two "messages" is 400 and never forwarded', async () => {
    const raw = `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"${SECRET}"}],"messages":[{"role":"user","content":"ok"}]}`;
    const r = await call(t.url, 'POST', '/v1/proxy/chat/completions', { token: plain.operator, headers: { ...H, 'content-type': 'application/json' }, rawBody: raw });
    expect(expectEnvelope(r, 400, 'invalid_request').message).toMatch(/duplicate key "messages"/);
    expect(mock.received.length).toBe(0);
  });

  it('on the API, nested and spelled with escapes: 400, nothing decided', async () => {
    const fresh = await t.tenant('content-dup');
    const raw = `{"agent_id":"a","action":{"type":"t","payload":{"x":1,"\\u0078":2}}}`;
    const r = await call(t.url, 'POST', '/v1/decide', { token: fresh.operator, headers: { 'content-type': 'application/json' }, rawBody: raw });
    expect(expectEnvelope(r, 400, 'invalid_request').message).toMatch(/duplicate key "x"/);
    const list = await call(t.url, 'GET', '/admin/decisions', { token: fresh.admin });
    expect(list.body.data).toEqual([]);
  });

  it('the same key in sibling objects, and keys that only look alike, are fine', async () => {
    const raw = `{"agent_id":"a","action":{"type":"t","payload":{"a":{"k":1},"b":{"k":2},"k":"x","K":1,"k ":2}}}`;
    const r = await call(t.url, 'POST', '/v1/decide', { token: plain.operator, headers: { 'content-type': 'application/json' }, rawBody: raw });
    expect(r.status).toBe(200);
  });
});

describe('decide and events judge object keys too', () => {
  it('{"payload":{"drop table users":true}} is DENY on /v1/decide', async () => {
    const r = await call(t.url, 'POST', '/v1/decide', { token: filtered.operator, body: { agent_id: 'a', action: { type: 'sql', payload: { [SECRET]: true } } } });
    expect(r.status).toBe(200);
    expect(r.body.envelope.execution_status).toBe('DENY');
  });

  it('an event whose payload key matches is scored DENY', async () => {
    const r = await call(t.url, 'POST', '/v1/events', { token: filtered.operator, body: { event_type: 'tool.call', payload: { args: { [SECRET]: 1 } } } });
    expect(r.status).toBe(200);
    expect(r.body.envelope.execution_status).toBe('DENY');
  });
});
