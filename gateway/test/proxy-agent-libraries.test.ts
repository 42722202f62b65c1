import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, streamText } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';
import { MockResponses } from './helpers/mock-responses.js';
import { entryWithPromptTokens } from './helpers/proxy-ledger.js';

// The agent libraries most agents are built on, with their default OpenAI models (which speak the Responses API),
// against the proxy: changed only in base URL and key (the PAT), a mock of the Responses API on loopback behind it.

let t: TestGateway;
let mock: MockResponses;
let tok: Awaited<ReturnType<TestGateway['tenant']>>;
let blocked: Awaited<ReturnType<TestGateway['tenant']>>;

const headers = { 'x-svc-agent-id': 'library-agent', 'x-forwarded-authorization': 'Bearer sk-provider-key' };

/** The Vercel AI SDK's OpenAI provider; its default model (`openai('gpt-4o')`) calls the Responses API. */
const vercel = (token: string) => createOpenAI({ baseURL: `${t.url}/v1/proxy`, apiKey: token, headers });

/** LangChain's ChatOpenAI on the Responses API. */
const langchain = (token: string) =>
  new ChatOpenAI({ model: 'gpt-4o', apiKey: token, useResponsesApi: true, maxRetries: 0, configuration: { baseURL: `${t.url}/v1/proxy`, defaultHeaders: headers } });

beforeAll(async () => {
  mock = await new MockResponses().start();
  t = await startTestGateway({ upstreamBaseUrl: mock.baseUrl });
  tok = await t.tenant('libs');
  blocked = await t.tenant('libs-block');
  await call(t.url, 'POST', '/v1/policies', { token: tok.admin, body: { name: 'pii', type: 'pii_redaction', risk: 20, rules: { action: 'REDACT', target: 'both' } } });
  await call(t.url, 'POST', '/v1/policies', { token: blocked.admin, body: { name: 'no exfil', type: 'content_filter', risk: 90, rules: { patterns: ['(?i)export all customer records'], action: 'DENY' } } });
});
afterAll(async () => {
  await t?.close();
  await mock?.close();
});
beforeEach(() => mock.reset());

describe("the Vercel AI SDK's default OpenAI model", () => {
  it('generateText goes to /responses: PII redacted both ways, the verdict headers on its response, one ledger entry with usage', async () => {
    mock.next({ text: 'Write to joao.pereira@example.org.', usage: { input_tokens: 4101, output_tokens: 11 } });
    const r = await generateText({ model: vercel(tok.operator)('gpt-4o'), system: 'The user is ana.silva@example.com.', prompt: 'Who do I write to?' });
    expect(mock.received[0]!.path).toBe('/v1/responses');
    expect(mock.received[0]!.raw).not.toContain('ana.silva@example.com');
    expect(r.text).toBe('Write to [REDACTED:EMAIL].');
    expect(r.response.headers?.['x-svc-verdict']).toBe('ALLOWED');
    const e = await entryWithPromptTokens(t.url, tok.admin, 4101);
    expect(e.payload).toMatchObject({ endpoint: 'responses', model: 'gpt-4o', outcome: 'completed' });
  });

  it('streamText: an e-mail split across deltas reaches the stream redacted, and the final text agrees', async () => {
    mock.next({ chunks: ['Contact joao.per', 'eira@exa', 'mple.org today'], usage: { input_tokens: 4202, output_tokens: 5 } });
    const result = streamText({ model: vercel(tok.operator)('gpt-4o'), prompt: 'contact?' });
    let streamed = '';
    for await (const d of result.textStream) streamed += d;
    expect(streamed).toBe('Contact [REDACTED:EMAIL] today');
    expect(await result.text).toBe(streamed);
    expect((await result.usage).inputTokens).toBe(4202);
  });

  it('a tool call streamed in argument deltas arrives with its arguments redacted and valid', async () => {
    mock.next({ functionCalls: [{ name: 'mail', arguments: '{"to":"bo@example.com"}', chunks: ['{"to":"bo@exa', 'mple.com"}'] }] });
    const { jsonSchema, tool } = await import('ai');
    const result = streamText({
      model: vercel(tok.operator)('gpt-4o'),
      prompt: 'mail bo',
      tools: { mail: tool({ description: 'send mail', inputSchema: jsonSchema<{ to: string }>({ type: 'object', properties: { to: { type: 'string' } }, required: ['to'] }) }) },
    });
    const calls = await result.toolCalls;
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ toolName: 'mail', input: { to: '[REDACTED:EMAIL]' } });
  });

  it('a blocked prompt raises the SDK\'s API error with our message; the provider is never contacted', async () => {
    const err = await generateText({ model: vercel(blocked.operator)('gpt-4o'), prompt: 'EXPORT ALL CUSTOMER RECORDS', maxRetries: 0 }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as { statusCode?: number }).statusCode).toBe(403);
    expect(String((err as Error).message)).toContain('blocked by policy');
    expect(mock.received).toHaveLength(0);
  });
});

describe("LangChain's ChatOpenAI on the Responses API", () => {
  it('invoke: PII redacted both ways, one ledger entry', async () => {
    mock.next({ text: 'Write to joao.pereira@example.org.', usage: { input_tokens: 4303, output_tokens: 3 } });
    const msg = await langchain(tok.operator).invoke([
      ['system', 'The user is ana.silva@example.com.'],
      ['human', 'Who do I write to?'],
    ]);
    expect(mock.received[0]!.path).toBe('/v1/responses');
    expect(mock.received[0]!.raw).not.toContain('ana.silva@example.com');
    expect(msg.text).toBe('Write to [REDACTED:EMAIL].');
    const e = await entryWithPromptTokens(t.url, tok.admin, 4303);
    expect(e.event_type).toBe('proxy.responses');
  });

  it('stream: the chunks join into the redacted text', async () => {
    mock.next({ chunks: ['Mail ana', '.silva@ex', 'ample.com now'] });
    let text = '';
    for await (const chunk of await langchain(tok.operator).stream('who?')) text += chunk.text;
    expect(text).toBe('Mail [REDACTED:EMAIL] now');
  });

  it('a blocked prompt raises with our message; the provider is never contacted', async () => {
    const err = await langchain(blocked.operator)
      .invoke('EXPORT ALL CUSTOMER RECORDS')
      .then(() => null, (e: unknown) => e);
    expect(String((err as Error).message)).toContain('blocked by policy');
    expect(mock.received).toHaveLength(0);
  });
});
