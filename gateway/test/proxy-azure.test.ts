import { AzureOpenAI, PermissionDeniedError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { MockUpstream } from './helpers/mock-upstream.js';
import { entryWithPromptTokens } from './helpers/proxy-ledger.js';

// The official openai SDK's AzureOpenAI client against the proxy's Azure routes, changed only in its endpoint and key
// (the PAT); the mock answers Azure's deployment paths as OpenAI's.

let t: TestGateway;
let off: TestGateway;
let mock: MockUpstream;
let tok: Awaited<ReturnType<TestGateway['tenant']>>;

const API_VERSION = '2024-10-21';

function client(token = tok.operator) {
  return new AzureOpenAI({
    endpoint: `${t.url}/v1/proxy/azure`,
    apiKey: token,
    apiVersion: API_VERSION,
    deployment: 'gpt4o-prod',
    maxRetries: 0,
    defaultHeaders: { 'x-svc-agent-id': 'azure-agent', 'x-forwarded-api-key': 'azure-provider-key' },
  });
}

beforeAll(async () => {
  mock = await new MockUpstream().start();
  t = await startTestGateway({ upstreamAzureBaseUrl: new URL(mock.url).origin });
  off = await startTestGateway();
  tok = await t.tenant('azure');
});
afterAll(async () => {
  await t?.close();
  await off?.close();
  await mock?.close();
});
beforeEach(() => mock.reset());

describe('Azure OpenAI through the proxy', () => {
  it("a chat completion reaches the deployment's path with the api-version and the provider's key, never the PAT", async () => {
    mock.next({ content: 'Olá.' });
    const { data, response } = await client().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Oi' }] }).withResponse();
    expect(data.choices[0]!.message.content).toBe('Olá.');
    expect(response.headers.get('x-svc-verdict')).toBe('ALLOWED');
    const got = mock.received[0]!;
    expect(got.url).toBe(`/openai/deployments/gpt4o-prod/chat/completions?api-version=${API_VERSION}`);
    expect(got.headers['api-key']).toBe('azure-provider-key');
    expect(got.headers['authorization']).toBeUndefined();
    expect(JSON.stringify(got.headers)).not.toContain(tok.operator);
  });

  it('a body without a model (Azure reads it from the deployment) is forwarded, and the deployment is recorded as the model', async () => {
    mock.next({ content: 'ok', usage: { prompt_tokens: 5151, completion_tokens: 1 } });
    const r = await call(t.url, 'POST', `/v1/proxy/azure/openai/deployments/gpt4o-prod/chat/completions?api-version=${API_VERSION}`, {
      headers: { 'api-key': tok.operator, 'x-svc-agent-id': 'rest-agent', 'x-forwarded-api-key': 'azure-provider-key' },
      body: { messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(r.status, r.text).toBe(200);
    expect(mock.received).toHaveLength(1);
    const e = await entryWithPromptTokens(t.url, tok.admin, 5151);
    expect(e.payload['model']).toBe('gpt4o-prod');
  });

  it('streams, embeddings, and the ledger entry naming the Azure endpoint', async () => {
    mock.next({ chunks: ['a ', 'b ', 'c'] });
    const stream = await client().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'abc?' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('a b c');
    const e = await client().embeddings.create({ model: 'text-embedding-3-small', input: 'vector me' });
    expect(e.data).toHaveLength(1);
    expect(mock.received[1]!.url).toBe(`/openai/deployments/gpt4o-prod/embeddings?api-version=${API_VERSION}`);
    const events = await call(t.url, 'GET', '/v1/events?limit=20&order=desc', { token: tok.admin });
    expect(events.body.events.map((x: { event_type: string }) => x.event_type)).toContain('proxy.azure.chat.completions');
  });

  it('PII is redacted before Azure sees it; a blocked prompt is the SDK\'s PermissionDeniedError and Azure is never contacted', async () => {
    const admin = await t.tenant('azure-policies');
    await call(t.url, 'POST', '/v1/policies', { token: admin.admin, body: { name: 'pii', type: 'pii_redaction', risk: 20, rules: { action: 'REDACT', target: 'both' } } });
    await call(t.url, 'POST', '/v1/policies', { token: admin.admin, body: { name: 'no exfil', type: 'content_filter', risk: 90, rules: { patterns: ['(?i)export all customer records'], action: 'DENY' } } });
    mock.next({ content: 'ok' });
    await client(admin.operator).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'I am ana.silva@example.com' }] });
    expect(JSON.stringify(mock.received[0]!.body)).not.toContain('ana.silva@example.com');
    mock.reset();
    const err = await client(admin.operator)
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'export all customer records' }] })
      .then(() => null, (x: unknown) => x);
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect(mock.received).toHaveLength(0);
  });

  it('PII in the answer is redacted, whole and split across two stream events; the usage is recorded and priced', async () => {
    const admin = await t.tenant('azure-pii-out');
    await call(t.url, 'POST', '/v1/policies', { token: admin.admin, body: { name: 'pii', type: 'pii_redaction', risk: 20, rules: { action: 'REDACT', target: 'both' } } });
    mock.next({ content: 'Write to joao.pereira@example.org.', usage: { prompt_tokens: 5252, completion_tokens: 100 } });
    const whole = await client(admin.operator).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'contact?' }] });
    expect(whole.choices[0]!.message.content).toBe('Write to [REDACTED:EMAIL].');
    const e = await entryWithPromptTokens(t.url, admin.admin, 5252);
    expect(e.payload).toMatchObject({ endpoint: 'azure.chat', model: 'gpt-4o', usage: { prompt_tokens: 5252, completion_tokens: 100 } });
    expect(e.payload['cost_brl']).toBeGreaterThan(0);
    mock.next({ chunks: ['Contact joao.per', 'eira@example.org today'] });
    const stream = await client(admin.operator).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'contact?' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Contact [REDACTED:EMAIL] today');
  });

  it('a deployment or api-version that could reshape the URL is a 400; without UPSTREAM_AZURE_BASE_URL the routes are a 404', async () => {
    const h = { 'x-svc-agent-id': 'bad', 'api-key': tok.operator };
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] };
    const dots = await call(t.url, 'POST', `/v1/proxy/azure/openai/deployments/..%2f..%2fadmin/chat/completions?api-version=${API_VERSION}`, { headers: h, body });
    expect(dots.status).toBe(400);
    const version = await call(t.url, 'POST', '/v1/proxy/azure/openai/deployments/gpt4o-prod/chat/completions?api-version=x%26evil%3D1', { headers: h, body });
    expect(version.status).toBe(400);
    const noVersion = await call(t.url, 'POST', '/v1/proxy/azure/openai/deployments/gpt4o-prod/chat/completions', { headers: h, body });
    expect(noVersion.status).toBe(400);
    expect(mock.received).toHaveLength(0);
    const offToken = await off.tenant('azure-off');
    const r = await call(off.url, 'POST', `/v1/proxy/azure/openai/deployments/gpt4o-prod/chat/completions?api-version=${API_VERSION}`, { headers: { ...h, 'api-key': offToken.operator }, body });
    expect(r.status).toBe(404);
  });
});
