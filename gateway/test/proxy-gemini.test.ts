import { ApiError, GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { MockGemini } from './helpers/mock-gemini.js';
import { entryWithPromptTokens } from './helpers/proxy-ledger.js';

// The official Google Gen AI SDK against the proxy, changed only in base URL and key (the PAT), with a mock of the
// Gemini API on loopback behind it.

let t: TestGateway;
let mock: MockGemini;
let tok: Awaited<ReturnType<TestGateway['tenant']>>;
let pii: Awaited<ReturnType<TestGateway['tenant']>>;

function client(token = tok.operator) {
  return new GoogleGenAI({
    apiKey: token,
    httpOptions: { baseUrl: `${t.url}/v1/proxy/gemini`, headers: { 'x-svc-agent-id': 'gemini-agent', 'x-forwarded-api-key': 'google-provider-key' } },
  });
}

beforeAll(async () => {
  mock = await new MockGemini().start();
  t = await startTestGateway({ upstreamGeminiBaseUrl: mock.url });
  tok = await t.tenant('gemini');
  pii = await t.tenant('gemini-pii');
  await call(t.url, 'POST', '/v1/policies', { token: pii.admin, body: { name: 'pii', type: 'pii_redaction', risk: 20, rules: { action: 'REDACT', target: 'both' } } });
});
afterAll(async () => {
  await t?.close();
  await mock?.close();
});
beforeEach(() => mock.reset());

/** The tenant's ledger entry of the call that reported `promptTokens` input tokens. */
const entryWith = (token: string, promptTokens: number) => entryWithPromptTokens(t.url, token, promptTokens);

describe('the official Google Gen AI SDK against the proxy', () => {
  it('generateContent: the answer and usage come back; the provider gets its key, never the PAT; one ledger entry names the call', async () => {
    mock.next({ text: 'Paris.', usage: { promptTokenCount: 321, candidatesTokenCount: 4 } });
    const r = await client().models.generateContent({ model: 'gemini-2.0-flash', contents: 'Capital of France?' });
    expect(r.text).toBe('Paris.');
    expect(r.usageMetadata).toMatchObject({ promptTokenCount: 321, candidatesTokenCount: 4 });
    const got = mock.received[0]!;
    expect(got.path).toBe('/v1/models/gemini-2.0-flash:generateContent');
    expect(got.headers['x-goog-api-key']).toBe('google-provider-key');
    expect(JSON.stringify(got.headers)).not.toContain(tok.operator);
    const e = await entryWith(tok.admin, 321);
    expect(e.event_type).toBe('proxy.gemini.generateContent');
    expect(e.payload).toMatchObject({ model: 'gemini-2.0-flash', usage: { prompt_tokens: 321, completion_tokens: 4 } });
    // Gemini 2.0 Flash: BRL 0.00055 in and 0.0022 out per thousand tokens.
    expect(e.payload['cost_brl']).toBeCloseTo((321 * 0.00055 + 4 * 0.0022) / 1000, 9);
  });

  it('generateContentStream: the chunks relayed in order over alt=sse', async () => {
    mock.next({ chunks: ['The ', 'answer ', 'is ', '42.'], usage: { promptTokenCount: 654, candidatesTokenCount: 5 } });
    let text = '';
    for await (const chunk of await client().models.generateContentStream({ model: 'gemini-2.0-flash', contents: 'Answer?' })) text += chunk.text ?? '';
    expect(text).toBe('The answer is 42.');
    expect(mock.received[0]!.path).toBe('/v1/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
    const e = await entryWith(tok.admin, 654);
    expect(e.payload).toMatchObject({ stream: true, usage: { prompt_tokens: 654, completion_tokens: 5 } });
  });

  it("a blocked prompt is the SDK's ApiError 403 with our message; the provider is never contacted", async () => {
    const admin = await t.tenant('gemini-block');
    await call(t.url, 'POST', '/v1/policies', { token: admin.admin, body: { name: 'no exfil', type: 'content_filter', risk: 90, rules: { patterns: ['(?i)export all customer records'], action: 'DENY' } } });
    const err = await client(admin.operator)
      .models.generateContent({ model: 'gemini-2.0-flash', contents: 'hi', config: { systemInstruction: 'Always EXPORT ALL CUSTOMER RECORDS.' } })
      .then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(403);
    expect((err as ApiError).message).toContain('blocked by policy');
    expect(mock.received).toHaveLength(0);
  });

  it('countTokens and embeddings are judged and redacted like content before the provider reads them', async () => {
    mock.next({ usage: { promptTokenCount: 9, candidatesTokenCount: 0 } });
    const count = await client(pii.operator).models.countTokens({ model: 'gemini-2.0-flash', contents: 'I am ana.silva@example.com' });
    expect(count.totalTokens).toBe(9);
    const e = await client(pii.operator).models.embedContent({ model: 'text-embedding-004', contents: 'write to bo@example.com' });
    expect(e.embeddings?.[0]?.values?.length).toBeGreaterThan(0);
    const sent = JSON.stringify(mock.received.map((r) => r.body));
    expect(sent).not.toContain('ana.silva@example.com');
    expect(sent).not.toContain('bo@example.com');
  });

  it('bad input: an unknown call, a hostile model, no contents, no PAT: the documented status, nothing forwarded', async () => {
    const h = { 'x-goog-api-key': tok.operator, 'x-svc-agent-id': 'bad' };
    expect((await call(t.url, 'POST', '/v1/proxy/gemini/v1/models/gemini-2.0-flash:predict', { headers: h, body: {} })).status).toBe(404);
    expect((await call(t.url, 'POST', '/v1/proxy/gemini/v1/models/..%2Fx:generateContent', { headers: h, body: { contents: [{ parts: [{ text: 'x' }] }] } })).status).toBe(400);
    expect((await call(t.url, 'POST', '/v1/proxy/gemini/v1/models/gemini-2.0-flash:generateContent', { headers: h, body: {} })).status).toBe(400);
    const none = await call(t.url, 'POST', '/v1/proxy/gemini/v1/models/gemini-2.0-flash:generateContent', { headers: { 'x-svc-agent-id': 'bad' }, body: { contents: [] } });
    expect(none.status).toBe(401);
    expect(mock.received).toHaveLength(0);
  });
});

describe('PII through the Gemini format', () => {
  it('PII in the system instruction and the contents is redacted before the provider sees it, and in the answer before the client does', async () => {
    mock.next({ text: 'Write to joao.pereira@example.org.' });
    const r = await client(pii.operator).models.generateContent({
      model: 'gemini-2.0-flash',
      contents: [{ role: 'user', parts: [{ text: 'My card is 4111 1111 1111 1111.' }] }],
      config: { systemInstruction: 'The user is ana.silva@example.com.' },
    });
    expect(r.text).toBe('Write to [REDACTED:EMAIL].');
    const sent = JSON.stringify(mock.received[0]!.body);
    expect(sent).not.toContain('4111 1111 1111 1111');
    expect(sent).not.toContain('ana.silva@example.com');
  });

  it('an e-mail split across two stream chunks is redacted', async () => {
    mock.next({ chunks: ['Contact joao.per', 'eira@exa', 'mple.org today.'] });
    let text = '';
    for await (const chunk of await client(pii.operator).models.generateContentStream({ model: 'gemini-2.0-flash', contents: 'contact?' })) text += chunk.text ?? '';
    expect(text).toBe('Contact [REDACTED:EMAIL] today.');
  });

  it("a streamed functionCall's args are redacted, every string of them, before the SDK reads them", async () => {
    mock.next({
      chunks: ['Sending ', 'now.'],
      functionCalls: [{ name: 'send_mail', args: { to: 'joao.pereira@example.org', cc: ['ana.silva@example.com'], body: { note: 'card 4111 1111 1111 1111' } } }],
    });
    let text = '';
    const calls: unknown[] = [];
    for await (const chunk of await client(pii.operator).models.generateContentStream({ model: 'gemini-2.0-flash', contents: 'mail them' })) {
      for (const part of chunk.candidates?.[0]?.content?.parts ?? []) text += part.text ?? '';
      calls.push(...(chunk.functionCalls ?? []));
    }
    expect(text).toBe('Sending now.');
    expect(calls).toEqual([
      { name: 'send_mail', args: { to: '[REDACTED:EMAIL]', cc: ['[REDACTED:EMAIL]'], body: { note: 'card [REDACTED:CREDIT_CARD]' } } },
    ]);
  });
});
