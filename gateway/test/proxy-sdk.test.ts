import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, type TestGateway } from './helpers/start-test-gateway.js';
import type { MockUpstream } from './helpers/mock-upstream.js';
import { closeGatewayWithMock, startGatewayWithMock } from './helpers/gateway-with-mock.js';

let t: TestGateway;
let mock: MockUpstream;
let tok: Awaited<ReturnType<TestGateway['tenant']>>;

function client(token = tok.operator, headers: Record<string, string> = {}) {
  return new OpenAI({
    apiKey: token,
    baseURL: `${t.url}/v1/proxy`,
    maxRetries: 0,
    defaultHeaders: { 'x-svc-agent-id': 'sdk-agent', 'x-forwarded-authorization': 'Bearer sk-provider-key', ...headers },
  });
}

beforeAll(async () => {
  ({ t, mock } = await startGatewayWithMock());
  tok = await t.tenant('sdk');
});
afterAll(() => closeGatewayWithMock({ t, mock }));
beforeEach(() => mock.reset());

describe('the official openai SDK against the proxy', () => {
  it('chat: the provider answer comes back unchanged, with the verdict headers', async () => {
    mock.next({ content: 'Paris is the capital of France.' });
    const { data, response } = await client().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Capital of France?' }] }).withResponse();
    expect(data.choices[0]!.message.content).toBe('Paris is the capital of France.');
    expect(data.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-svc-verdict')).toBe('ALLOWED');
    expect(response.headers.get('x-svc-trace-id')).toMatch(/^dec_/);
    expect(response.headers.get('x-svc-policy')).toMatch(/^v\d+$/);
    expect(response.headers.get('x-svc-latency-ms')).toMatch(/^\d+$/);
    expect(response.headers.get('x-svc-rule')).toBeNull();
    expect(response.headers.get('x-request-id')).toBe('req-mock');
    // The provider got the provider key, never the PAT, and the trace continued.
    const got = mock.received[0]!;
    expect(got.path).toBe('/chat/completions');
    expect(got.headers['authorization']).toBe('Bearer sk-provider-key');
    expect(JSON.stringify(got.headers)).not.toContain(tok.operator);
    expect(got.headers['traceparent']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(got.body).toMatchObject({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Capital of France?' }] });
  });

  it('chat streamed: chunks relayed in order; the usage chunk we asked for is not shown unless the client asked', async () => {
    mock.next({ chunks: ['The ', 'answer ', 'is ', '42.'] });
    const stream = await client().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Answer?' }], stream: true });
    let text = '';
    let usageChunks = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usageChunks++;
    }
    expect(text).toBe('The answer is 42.');
    expect(usageChunks).toBe(0);
    expect((mock.received[0]!.body!['stream_options'] as Record<string, unknown>)['include_usage']).toBe(true);

    mock.next({ chunks: ['ok'] });
    const withUsage = await client().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], stream: true, stream_options: { include_usage: true } });
    let usage: unknown = null;
    for await (const chunk of withUsage) if (chunk.usage) usage = chunk.usage;
    expect(usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7 });
  });

  it('stream: verdict headers arrive with the status line, before the body', async () => {
    mock.next({ chunks: ['a', 'b'] });
    const { response } = await client().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true }).withResponse();
    expect(response.headers.get('x-svc-verdict')).toBe('ALLOWED');
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await response.text();
  });

  it('legacy completions, embeddings and models', async () => {
    mock.next({ content: 'completed text' });
    const comp = await client().completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say something' });
    expect(comp.choices[0]!.text).toBe('completed text');
    const emb = await client().embeddings.create({ model: 'text-embedding-3-small', input: ['one', 'two'] });
    expect(emb.data).toHaveLength(2);
    expect(emb.data[0]!.embedding).toEqual([0.1, -0.2, 0.3]);
    const models = await client().models.list();
    expect(models.data.map((m) => m.id)).toEqual(['gpt-4o-mini']);
    expect(mock.received.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /completions', 'POST /embeddings', 'GET /models']);
  });

  it('streamed legacy completions', async () => {
    mock.next({ chunks: ['one ', 'two'] });
    const stream = await client().completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'count', stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
    expect(text).toBe('one two');
  });
});

describe('blocking', () => {
  it('a blocked request is the SDK\'s PermissionDeniedError carrying our envelope; the upstream is never contacted', async () => {
    const admin = await t.tenant('sdk-block');
    const p = await call(t.url, 'POST', '/v1/policies', { token: admin.admin, body: { name: 'no exfil', type: 'content_filter', risk: 90, rules: { patterns: ['(?i)export all customer records'], action: 'DENY' } } });
    const err = await client(admin.operator)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Please EXPORT ALL CUSTOMER RECORDS to this address' }] })
      .then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    const e = err as InstanceType<typeof OpenAI.PermissionDeniedError>;
    expect(e.status).toBe(403);
    expect(e.error).toMatchObject({ code: 403, type: 'svc_policy_violation', rule: p.body.id });
    expect(e.headers?.get('x-svc-verdict')).toBe('DENIED');
    expect(e.headers?.get('x-svc-rule')).toBe(p.body.id);
    expect(mock.received).toHaveLength(0);
    const raw = await call(t.url, 'POST', '/v1/proxy/chat/completions', {
      token: admin.operator,
      headers: { 'x-svc-agent-id': 'a' },
      body: { model: 'm', messages: [{ role: 'user', content: 'export all customer records' }] },
    });
    expect(raw.status).toBe(403);
    expect(raw.body).toMatchObject({ verdict: 'DENIED', policy: { id: p.body.id, type: 'content_filter', action: 'DENY' } });
    expect(raw.body.error.traceId).toBe(raw.headers['x-svc-trace-id']);
    expect(mock.received).toHaveLength(0);
  });

  it('an answer blocked by an output filter is refused (non-streamed) or cut with an error event (streamed)', async () => {
    const admin = await t.tenant('sdk-outblock');
    await call(t.url, 'POST', '/v1/policies', { token: admin.admin, body: { name: 'no internal hosts', type: 'content_filter', risk: 80, rules: { patterns: ['corp\\.internal'], action: 'DENY', target: 'output' } } });
    mock.next({ content: 'Connect to db.corp.internal:5432 with the admin account.' });
    const err = await client(admin.operator).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'where is the db?' }] }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((err as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: 'svc_policy_violation' });

    mock.next({ chunks: ['Connect ', 'to db.corp', '.internal:5432 ', 'with the admin account.'] });
    const stream = await client(admin.operator).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'where?' }], stream: true });
    let text = '';
    const streamErr = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    })().then(() => null, (e: unknown) => e);
    expect(streamErr).toBeInstanceOf(OpenAI.APIError);
    expect(text).not.toContain('corp.internal');
    expect(text).not.toContain('admin account');
  });
});

describe('PII', () => {
  let pii: Awaited<ReturnType<TestGateway['tenant']>>;
  beforeAll(async () => {
    pii = await t.tenant('sdk-pii');
    await call(t.url, 'POST', '/v1/policies', { token: pii.admin, body: { name: 'pii', type: 'pii_redaction', risk: 20, rules: { action: 'REDACT', target: 'both' } } });
  });

  it('PII in the prompt is redacted before the upstream sees it', async () => {
    mock.next({ content: 'Noted.' });
    const r = await client(pii.operator).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You are a support bot.' },
        { role: 'user', content: [{ type: 'text', text: 'I am ana.silva@example.com, card 4111 1111 1111 1111, CPF 529.982.247-25.' }] },
      ],
    });
    expect(r.choices[0]!.message.content).toBe('Noted.');
    const sent = JSON.stringify(mock.received[0]!.body);
    expect(sent).not.toContain('ana.silva@example.com');
    expect(sent).not.toContain('4111 1111 1111 1111');
    expect(sent).not.toContain('529.982.247-25');
    expect(sent).toContain('[REDACTED:EMAIL]');
    expect(sent).toContain('[REDACTED:CREDIT_CARD]');
    expect(sent).toContain('[REDACTED:BR_CPF]');
    expect(sent).toContain('You are a support bot.');
  });

  it('an e-mail in full-width characters, percent-encoded or as an HTML entity in the prompt is redacted before the upstream sees it', async () => {
    mock.next({ content: 'Noted.' });
    const prompt = 'Write to ａｌｉｃｅ＠ｅｘａｍｐｌｅ．ｃｏｍ, alice%40example.com or alice&#64;example.com (or bob&commat;example.com).';
    await client(pii.operator).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }] });
    const sent = mock.received[0]!.body as { messages: { content: string }[] };
    expect(sent.messages[0]!.content).toBe('Write to [REDACTED:EMAIL], [REDACTED:EMAIL] or [REDACTED:EMAIL] (or [REDACTED:EMAIL]).');
  });

  it('an HTML-encoded or full-width e-mail split across SSE chunks is still redacted in the stream', async () => {
    mock.next({ chunks: ['Write to alice&', '#6', '4;exam', 'ple.com or ｂｏｂ', '＠ｅｘａｍｐｌｅ．ｃｏｍ', ' today.'] });
    const stream = await client(pii.operator).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'contact?' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Write to [REDACTED:EMAIL] or [REDACTED:EMAIL] today.');
  });

  it('PII in a non-streamed answer is redacted before the client sees it', async () => {
    mock.next({ content: 'Write to joao.pereira@example.org or call +55 11 91234-5678.' });
    const r = await client(pii.operator).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'contact?' }] });
    expect(r.choices[0]!.message.content).toBe('Write to [REDACTED:EMAIL] or call [REDACTED:PHONE].');
  });

  it('PII split across SSE chunks is still redacted in the stream', async () => {
    mock.next({ chunks: ['Contact ', 'joao.per', 'eira@exa', 'mple.org', ' or pay with 4111 11', '11 1111 1', '111 today.'] });
    const stream = await client(pii.operator).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'contact?' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Contact [REDACTED:EMAIL] or pay with [REDACTED:CREDIT_CARD] today.');
  });

  it('an e-mail split across streamed tool-call argument deltas is redacted; the held tail ends its call, and the JSON stays valid', async () => {
    mock.next({ content: '', toolCalls: [{ name: 'mail', arguments: '', chunks: ['{"to":"bo@exa', 'mple.com","cc":"ana', '@example.com"}'] }, { name: 'log', arguments: '', chunks: ['{"note":"ok"}'] }] });
    const final = await client(pii.operator)
      .chat.completions.stream({ model: 'm', messages: [{ role: 'user', content: 'mail bo' }], tools: [{ type: 'function', function: { name: 'mail', parameters: { type: 'object' } } }] })
      .finalChatCompletion();
    const calls = final.choices[0]!.message.tool_calls!;
    expect(calls.map((tc) => (tc.type === 'function' ? [tc.function.name, JSON.parse(tc.function.arguments)] : null))).toEqual([
      ['mail', { to: '[REDACTED:EMAIL]', cc: '[REDACTED:EMAIL]' }],
      ['log', { note: 'ok' }],
    ]);
  });

  it('an entity at the very end of a stream is flushed redacted', async () => {
    mock.next({ chunks: ['mail me: ', 'ana@exam', 'ple.com'] });
    const stream = await client(pii.operator).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('mail me: [REDACTED:EMAIL]');
  });
});
